#!/usr/bin/python3
"""The torchvision side of ImagenetPairs (issue 44): the same pipeline over the same JPEGs.

Started by ImagenetPairs with Debian's /usr/bin/python3 (python3-torch, python3-torchvision,
python3-pil) and driven over stdin/stdout, so that its epochs run in the same rounds as ours:

    imagenet_torchvision.py FOLDER SEED

FOLDER holds <label>/<n>.jpg. The script builds one DataLoader per worker count (0 and 2) over
torchvision.datasets.ImageFolder with RandomResizedCrop(224), RandomHorizontalFlip, ToTensor and
Normalize(ImageNet's mean/std), batches of 64, shuffled by a seeded generator, then prints
"ready ..." and answers each line "epoch W" with one whole epoch of the loader with W workers:

    epoch W images=N cpu_ns=C main_ns=M workers_ns=K

C is the CPU time (user + system) of this process and its worker processes over the epoch: this
process's from getrusage (all threads), the workers' from /proc/<pid>/stat while they live and
from RUSAGE_CHILDREN once they have exited and been waited for. The wall time is taken by the
caller. "quit" or the end of stdin ends it; an error goes to stderr and ends it with status 1.
"""
import os
import resource
import sys


def fail(message):
    print("imagenet_torchvision: " + message, file=sys.stderr, flush=True)
    sys.exit(1)


try:
    import PIL
    import torch
    import torchvision
    from torch.utils.data import DataLoader
    from torchvision import transforms
except ImportError as e:  # the caller tells how to install them and goes on without us
    fail(f"{e}; install with: apt-get install -y --no-install-recommends python3-torchvision python3-torch python3-pil")

BATCH = 64
MEAN = (0.485, 0.456, 0.406)  # RGB, on pixels scaled to [0, 1]: 123.68/255, 116.28/255, 103.53/255
STD = (0.229, 0.224, 0.225)   # 58.395/255, 57.12/255, 57.375/255
TICK_NS = 1_000_000_000 // os.sysconf("SC_CLK_TCK")


def own_ns():
    """CPU time of this process (all its threads) and of its children already waited for."""
    s = resource.getrusage(resource.RUSAGE_SELF)
    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    return int((s.ru_utime + s.ru_stime) * 1e9), int((c.ru_utime + c.ru_stime) * 1e9)


def live_children_ns():
    """utime + stime of the processes whose parent is this one (the DataLoader's workers)."""
    me = os.getpid()
    total = 0
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                stat = f.read()
        except OSError:  # exited meanwhile: RUSAGE_CHILDREN has it once waited for
            continue
        fields = stat[stat.rindex(")") + 2:].split()  # after "pid (comm) "; comm may hold spaces
        if int(fields[1]) == me:  # ppid
            total += (int(fields[11]) + int(fields[12])) * TICK_NS  # utime, stime
    return total


def cpu_ns():
    main, waited = own_ns()
    return main, waited + live_children_ns()


def main():
    if len(sys.argv) != 3:
        fail("usage: imagenet_torchvision.py FOLDER SEED")
    folder, seed = sys.argv[1], int(sys.argv[2])
    if not os.path.isdir(folder):
        fail(f"{folder}: no such folder of <label>/<n>.jpg")
    # The default loader opens each file with PIL and converts it to RGB: a full-size decode
    # (Image.draft, PIL's reduced-size JPEG decoding, is not asked for).
    transform = transforms.Compose([
        transforms.RandomResizedCrop(224),  # scale (0.08, 1), ratio (3/4, 4/3), bilinear
        transforms.RandomHorizontalFlip(),
        transforms.ToTensor(),
        transforms.Normalize(MEAN, STD),
    ])
    dataset = torchvision.datasets.ImageFolder(folder, transform=transform)
    torch.manual_seed(seed)  # the crops and flips of the main process; workers seed from the loader
    loaders = {}
    for workers in (0, 2):
        g = torch.Generator()
        g.manual_seed(seed)
        # Persistent workers, as a loader kept over a training run: forked once, not every epoch.
        loaders[workers] = DataLoader(dataset, batch_size=BATCH, shuffle=True, generator=g,
                                      num_workers=workers, persistent_workers=workers > 0)
    print(f"ready images={len(dataset)} torch={torch.__version__} torchvision={torchvision.__version__}"
          f" pil={PIL.__version__} torch_threads={torch.get_num_threads()}", flush=True)
    for line in sys.stdin:
        words = line.split()
        if words == ["quit"]:
            break
        if len(words) != 2 or words[0] != "epoch" or not words[1].isdigit() or int(words[1]) not in loaders:
            fail(f"unknown command {line.strip()!r}: expected 'epoch 0', 'epoch 2' or 'quit'")
        workers = int(words[1])
        main0, children0 = cpu_ns()
        images = 0
        for x, _ in loaders[workers]:
            images += x.shape[0]
        main1, children1 = cpu_ns()
        print(f"epoch {workers} images={images} cpu_ns={main1 - main0 + children1 - children0}"
              f" main_ns={main1 - main0} workers_ns={children1 - children0}", flush=True)


if __name__ == "__main__":
    main()
