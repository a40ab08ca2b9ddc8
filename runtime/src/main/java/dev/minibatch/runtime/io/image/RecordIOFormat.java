package dev.minibatch.runtime.io.image;

import dev.minibatch.runtime.Batch;
import dev.minibatch.runtime.BatchProvider;
import dev.minibatch.runtime.io.FileFormatException;
import dev.minibatch.runtime.io.Format;
import dev.minibatch.runtime.io.LocalFormat;
import dev.minibatch.runtime.io.Format.Options;
import dev.minibatch.runtime.io.Format.Problems;
import dev.minibatch.runtime.io.Format.Report;
import dev.minibatch.runtime.io.recordio.ImageRecord;
import dev.minibatch.runtime.io.recordio.RecordIOFile;
import dev.minibatch.runtime.io.recordio.RecordIOFile.RecordProblem;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * RecordIO files of image records (MXNet's {@code .rec}), read by the runtime's {@link
 * RecordIOFile}, {@link ImageRecord} and {@link ImageProbe}; an index beside the file ({@code
 * train.rec} → {@code train.idx}) is used when there is one. {@code bench} reads the images through
 * {@link ImageRecordProvider} at the first image's size, with the first record's label width. A
 * {@link java.util.ServiceLoader} service of {@link Format}.
 */
public final class RecordIOFormat implements LocalFormat {
  /** The format; also what {@link ImageRecordProvider#format()} returns. */
  public RecordIOFormat() {}

  @Override
  public int probeOrder() {
    return RECORDIO_ORDER;
  }

  @Override
  public String name() {
    return "recordio";
  }

  @Override
  public boolean probe(Path file, byte[] head) {
    return head.length >= 8 && ByteBuffer.wrap(head).order(ByteOrder.LITTLE_ENDIAN).getInt(0) == 0xCED7230A;
  }

  /** The {@code .idx} beside {@code file}, or null. */
  static @Nullable Path indexFor(Path file) {
    String name = file.getFileName().toString();
    if (!name.endsWith(".rec")) {
      return null;
    }
    Path idx = file.resolveSibling(name.substring(0, name.length() - 4) + ".idx");
    return Files.isRegularFile(idx) ? idx : null;
  }

  @Override
  public Report describe(Path file, Options options) {
    Path idx = indexFor(file);
    Report r = new Report();
    try (RecordIOFile rec = RecordIOFile.builder(file).index(idx).open()) {
      r.field("format", "RecordIO (dmlc, MXNet .rec)" + (idx == null ? "" : ", index " + idx));
      r.field("records", Integer.toString(rec.records()));
      r.field("bytes", Long.toString(rec.size()));
      double[] headerLabels = new double[rec.records()];
      int labelled = 0;
      Map<String, Long> widths = new TreeMap<>();
      Map<String, Long> formats = new TreeMap<>();
      List<String> rows = new ArrayList<>();
      ByteBuffer buffer = null;
      for (int i = 0; i < rec.records(); i++) {
        buffer = rec.read(i, buffer);
        ImageRecord.check(buffer, file.toString(), i, rec.offset(i));
        int flag = ImageRecord.flag(buffer);
        widths.merge(flag == 0 ? "1 (in the header)" : flag + " (packed)", 1L, Long::sum);
        if (flag == 0) {
          headerLabels[labelled++] = ImageRecord.headerLabel(buffer);
        }
        ByteBuffer image = buffer.duplicate().position(ImageRecord.imageOffset(buffer));
        if (i < options.rows()) {
          ImageProbe probe = ImageProbe.of(image);
          formats.merge(probe.format(), 1L, Long::sum);
          StringBuilder s = new StringBuilder("#" + i + ": id " + ImageRecord.id(buffer) + ", label");
          if (flag == 0) {
            s.append(' ').append(Report.number(ImageRecord.headerLabel(buffer)));
          } else {
            s.append("s [");
            for (int k = 0; k < flag; k++) {
              s.append(k == 0 ? "" : ", ").append(Report.number(ImageRecord.label(buffer, k)));
            }
            s.append(']');
          }
          s.append(", ").append(probe).append(", ").append(image.remaining()).append(" bytes at offset ")
              .append(rec.offset(i));
          rows.add(s.toString());
        }
      }
      r.histogram("labels per record", widths);
      if (labelled > 0) {
        r.histogram("classes (header labels)", Report.counts(i -> headerLabels[(int) i], labelled));
      }
      r.histogram("image formats (first rows)", formats);
      r.rows("first rows", rows);
    }
    return r;
  }

  @Override
  public void validate(Path file, Options options, Problems problems) {
    Path idx = indexFor(file);
    List<RecordProblem> skipped = new ArrayList<>();
    try (RecordIOFile rec = idx != null ? RecordIOFile.open(file, idx)
        : RecordIOFile.builder(file).skipCorrupt(true).problems(skipped::add).open()) {
      for (RecordProblem p : skipped) {
        problems.report(file + ": offset " + p.offset(), p.message() + " (" + p.skippedBytes() + " bytes up to the "
            + "next record)");
      }
      ByteBuffer buffer = null;
      for (int i = 0; i < rec.records() && !problems.isFull(); i++) {
        try {
          buffer = rec.read(i, buffer);
          ImageRecord.check(buffer, file.toString(), i, rec.offset(i));
        } catch (FileFormatException e) {
          problems.report(e, e.file());
          continue;
        }
        ImageProbe probe = ImageProbe.of(buffer.duplicate().position(ImageRecord.imageOffset(buffer)));
        if (probe.problem() != null) {
          problems.report(file + ": " + ImageRecord.location(i, rec.offset(i), ImageRecord.id(buffer)),
              probe.problem());
        }
      }
    } catch (FileFormatException e) {
      problems.report(e, e.file());
    }
  }

  /**
   * {@link ImageRecordProvider} at the first image's size and channels, with the first record's
   * label width (its header's flag: 0 is one label in the header, k &gt; 0 is k packed labels, as
   * {@code inspect} shows). MXNet's {@code round_batch} needs a batch of samples, so a file with
   * fewer records than the batch size is read in batches of all its records. {@link ImageOptions}
   * are applied last.
   */
  @Override
  public BatchProvider<? extends Batch> provider(Path file, Options options) {
    ImageProbe first;
    String firstRecord;
    int labelWidth;
    int records;
    Path idx = indexFor(file);
    try (RecordIOFile rec = RecordIOFile.builder(file).index(idx).open()) {
      RecordImages.requireRecords(rec, idx);
      records = rec.records();
      ByteBuffer b = rec.read(0, null);
      ImageRecord.check(b, file.toString(), 0, rec.offset(0));
      labelWidth = Math.max(1, ImageRecord.flag(b));
      first = ImageProbe.of(b.duplicate().position(ImageRecord.imageOffset(b)));
      firstRecord = ImageRecord.location(0, rec.offset(0), ImageRecord.id(b));
    }
    // A bad first image is named as validate names it: record, offset and image id.
    return first.providerAtThisSize(file.toString(), firstRecord + ": ").pathImgrec(file).pathImgidx(idx)
        .labelWidth(labelWidth).settings(options.settings()).batchSize(Math.min(options.batchSize(), records))
        .apply(options.get(ImageOptions.class, ImageOptions.NONE).builder()).build();
  }
}
