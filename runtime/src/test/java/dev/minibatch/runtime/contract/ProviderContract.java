package dev.minibatch.runtime.contract;

import static dev.minibatch.runtime.contract.Batches.ids;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.DynamicContainer.dynamicContainer;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import dev.minibatch.DataDesc;
import dev.minibatch.LastBatch;
import dev.minibatch.runtime.Batch;
import dev.minibatch.runtime.BatchIterator;
import dev.minibatch.runtime.BatchProvider;
import dev.minibatch.runtime.IterationState;
import dev.minibatch.runtime.ProviderBuilder;
import dev.minibatch.runtime.Resumable;
import dev.minibatch.runtime.Settings;
import dev.minibatch.runtime.pipeline.PipelineStats;
import dev.minibatch.runtime.contract.Batches.Epoch;
import dev.minibatch.runtime.contract.ProviderFixture.Capability;
import dev.minibatch.runtime.pipeline.StageFailedException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * The contract every {@link BatchProvider} must meet, written once and run against every provider
 * kind: subclass it, return your {@link ProviderFixture} from {@link #fixture()}, and JUnit runs
 * every test on your provider.
 *
 * <pre>{@code
 * class MyProviderContractTest extends ProviderContract {
 *   @Override
 *   protected ProviderFixture fixture() {
 *     return new MyFixture();
 *   }
 * }
 * }</pre>
 *
 * <p>Expectations are computed by hand (mostly 10 samples {@code 0..9} in batches of 3, as in
 * {@link LastBatch}'s documentation), never taken from what a provider does. What is checked:
 *
 * <ol>
 *   <li>every last-batch policy, with the exact sample indices of every batch;
 *   <li>every batch, right after {@code next()}: {@code rows()}, {@code pad()}, {@code
 *       countSamples() == rows() - pad()}, {@code sampleIndices()}, and that every row holds the
 *       sample its {@code sampleIndex} names (data and labels), or the padding constant of its
 *       name;
 *   <li>shuffle: a permutation per epoch, a function of (seed, epoch);
 *   <li>shards: disjoint parts covering every sample; even shards;
 *   <li>resuming from a saved state, and the rejection of invalid states;
 *   <li>nested use on one thread, and concurrent use from two threads (never a wrong row);
 *   <li>closing: no engine thread (named {@code minibatch-...}) outlives its epoch or provider;
 *   <li>a failing sample reaches the consumer naming the stage and the sample;
 *   <li>reader settings ({@code readers(n)}, {@code autotune}) are honoured or refused, never dropped.
 * </ol>
 *
 * <p>Each {@link Capability} is one test container, named for what the fixture declares (e.g. {@code
 * ArrayFixture declares RESUME}): with the capability it holds the tests of it, without it the
 * counter-tests of the documented refusal (a provider that cannot shuffle refuses {@code
 * shuffle(true)} at build, one without threads starts none, ...). Nothing is skipped: a report's
 * tests all ran, and its container names say which capabilities they covered.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
public abstract class ProviderContract {
  /** Samples of the small cases, {@code 0..9}. */
  static final int N = 10;
  /** Rows per batch of the small cases. */
  static final int BATCH = 3;
  /** Samples of the cases that need threads busy in mid-epoch or many batches. */
  static final int LARGE = 1000;
  /** Seconds to wait for threads that should end. They end in milliseconds when they do. */
  static final long THREAD_WAIT_SECONDS = 2;
  /** The limit of one generated test; the class's {@link Timeout} covers only annotated methods. */
  private static final Duration DYNAMIC_TEST_TIMEOUT = Duration.ofSeconds(60);

  private static final List<List<Long>> PARTIAL_EPOCH =
      ids(new int[] {0, 1, 2}, new int[] {3, 4, 5}, new int[] {6, 7, 8}, new int[] {9});

  private @Nullable ProviderFixture fixture;

  /** For subclasses. */
  protected ProviderContract() {}

  /** The fixture of the provider kind under test; called once per test, or per capability's tests. */
  protected abstract ProviderFixture fixture();

  private ProviderFixture f() {
    ProviderFixture fx = fixture;
    if (fx == null) {
      fx = fixture();
      fixture = fx;
    }
    return fx;
  }

  private boolean capable(Capability c) {
    return f().capabilities().contains(c);
  }

  /**
   * The tests of capability {@code c}: {@code declared} when the fixture declares it, else {@code
   * absent}, the counter-tests of the refusal; in one container whose name says which.
   */
  private Stream<DynamicNode> capability(Capability c, List<DynamicTest> declared, List<DynamicTest> absent) {
    boolean has = capable(c);
    String line = f().getClass().getSimpleName() + (has ? " declares " : " does not declare ") + c;
    return Stream.of(dynamicContainer(line, has ? declared : absent));
  }

  /** A generated test, limited to {@link #DYNAMIC_TEST_TIMEOUT} like the annotated ones. */
  private static DynamicTest test(String name, Executable body) {
    return dynamicTest(name, () -> assertTimeoutPreemptively(DYNAMIC_TEST_TIMEOUT, body));
  }

  private BatchProvider<? extends Batch> build(int n, Consumer<? super ProviderBuilder<?>> settings) {
    return f().build(n, settings);
  }

  private Resumable resumable(BatchProvider<? extends Batch> p) {
    return assertInstanceOf(Resumable.class, p, "the fixture declares RESUME but its provider is not Resumable");
  }

  private Epoch epoch(BatchProvider<? extends Batch> p) {
    return Batches.epoch(f(), p, null);
  }

  private static Consumer<ProviderBuilder<?>> policy(LastBatch lastBatch) {
    return b -> b.batchSize(BATCH).lastBatch(lastBatch);
  }

  /** Shuffled with {@code seed} where the fixture can shuffle, else in order. */
  private Consumer<ProviderBuilder<?>> shuffledIfCapable(long seed) {
    boolean shuffle = capable(Capability.SHUFFLE);
    return b -> {
      if (shuffle) {
        b.shuffle(true).seed(seed);
      }
    };
  }

  private static List<Long> range(int n) {
    return LongStream.range(0, n).boxed().toList();
  }

  // ---- 1, 2: last-batch policies, every batch checked ----

  /** Guards every other test: a wrong row is only caught if the fixture's holds() rejects it. */
  @Test
  void theFixtureTellsEverySampleApart() {
    try (BatchProvider<? extends Batch> p = build(N, policy(LastBatch.PARTIAL));
        BatchIterator<? extends Batch> it = p.iterator()) {
      int seen = 0;
      while (it.hasNext()) {
        Batch b = it.next();
        for (int r = 0; r < b.rows(); r++) {
          long i = b.sampleIndex(r);
          for (long j = 0; j < N; j++) {
            assertEquals(i == j, f().holds(b, r, j), "holds(batch, " + r + ", " + j + ") for a row with sample index "
                + i + " holding " + Batches.describe(b, r));
          }
          seen++;
        }
      }
      assertEquals(N, seen, "rows read");
    }
  }

  @Test
  void batchSizeAndDescriptionsMatchTheBatches() {
    try (BatchProvider<? extends Batch> p = build(N, policy(LastBatch.PARTIAL))) {
      assertEquals(BATCH, p.batchSize());
      List<DataDesc> descs = new ArrayList<>(p.provideData());
      descs.addAll(p.provideLabel());
      assertFalse(p.provideData().isEmpty(), "provideData() is empty");
      try (BatchIterator<? extends Batch> it = p.iterator()) {
        while (it.hasNext()) {
          Batch b = it.next();
          Batches.check(f(), b, null, "batch");
          assertEquals(descs.stream().map(DataDesc::name).toList(), b.names(), "names() vs provideData/provideLabel");
          List<INDArray> arrays = Batches.arrays(b);
          for (int a = 0; a < arrays.size(); a++) {
            DataDesc d = descs.get(a);
            assertEquals(BATCH, d.shape().dim(0), d.name() + ": the description's batch axis");
            // A VARIABLE axis of the description matches the batch's actual length there.
            dev.minibatch.shape.Shape want = d.sampleShape().withBatch(b.rows());
            assertTrue(want.matches(arrays.get(a).shape()), d.name() + ": array shape "
                + java.util.Arrays.toString(arrays.get(a).shape()) + " vs description " + want);
          }
        }
      }
    }
  }

  @Test
  void partialDeliversASmallerLastBatch() {
    try (BatchProvider<? extends Batch> p = build(N, policy(LastBatch.PARTIAL))) {
      for (int e = 0; e < 2; e++) {
        Epoch epoch = epoch(p);
        assertEquals(PARTIAL_EPOCH, epoch.indices(), "epoch " + e);
        assertEquals(List.of(0, 0, 0, 0), epoch.pads(), "epoch " + e);
      }
    }
  }

  @Test
  void discardDropsTheIncompleteBatch() {
    try (BatchProvider<? extends Batch> p = build(N, policy(LastBatch.DISCARD))) {
      for (int e = 0; e < 2; e++) {
        Epoch epoch = epoch(p);
        assertEquals(ids(new int[] {0, 1, 2}, new int[] {3, 4, 5}, new int[] {6, 7, 8}), epoch.indices(), "epoch " + e);
        assertEquals(List.of(0, 0, 0), epoch.pads(), "epoch " + e);
      }
    }
  }

  @Test
  void padWrapFillsTheLastBatchWithTheEpochsFirstSamples() {
    try (BatchProvider<? extends Batch> p = build(N, policy(LastBatch.PAD_WRAP))) {
      for (int e = 0; e < 2; e++) {
        Epoch epoch = epoch(p);
        // The pad rows name the samples they repeat, and Batches.check saw that they hold them.
        assertEquals(ids(new int[] {0, 1, 2}, new int[] {3, 4, 5}, new int[] {6, 7, 8}, new int[] {9, 0, 1}),
            epoch.indices(), "epoch " + e);
        assertEquals(List.of(0, 0, 0, 2), epoch.pads(), "epoch " + e);
      }
    }
  }

  @Test
  void padConstantFillsDataAndLabelsWithTheirOwnConstants() {
    Map<String, Double> padding = new LinkedHashMap<>();
    try (BatchProvider<? extends Batch> p = build(N, b -> b.batchSize(BATCH).lastBatch(LastBatch.PAD_CONSTANT)
        .dataPadding(-7).labelPadding(-3))) {
      p.provideData().forEach(d -> padding.put(d.name(), -7.0));
      p.provideLabel().forEach(d -> padding.put(d.name(), -3.0));
      Epoch epoch = Batches.epoch(f(), p, padding);
      assertEquals(ids(new int[] {0, 1, 2}, new int[] {3, 4, 5}, new int[] {6, 7, 8}, new int[] {9, -1, -1}),
          epoch.indices());
      assertEquals(List.of(0, 0, 0, 2), epoch.pads());
    }
  }

  @Test
  void padConstantTakesAPerNameValueBeforeTheRoleDefault() {
    List<String> dataNames;
    List<String> labelNames;
    try (BatchProvider<? extends Batch> probe = build(N, policy(LastBatch.PARTIAL))) {
      dataNames = probe.provideData().stream().map(DataDesc::name).toList();
      labelNames = probe.provideLabel().stream().map(DataDesc::name).toList();
    }
    Map<String, Double> padding = new LinkedHashMap<>();
    dataNames.forEach(n -> padding.put(n, -7.0));
    labelNames.forEach(n -> padding.put(n, -3.0));
    padding.put(dataNames.get(0), -5.0);
    if (!labelNames.isEmpty()) {
      padding.put(labelNames.get(0), -9.0);
    }
    try (BatchProvider<? extends Batch> p = build(N, b -> {
      b.batchSize(BATCH).lastBatch(LastBatch.PAD_CONSTANT).dataPadding(-7).labelPadding(-3).padding(dataNames.get(0), -5);
      if (!labelNames.isEmpty()) {
        b.padding(labelNames.get(0), -9);
      }
    })) {
      Epoch epoch = Batches.epoch(f(), p, padding);
      assertEquals(ids(new int[] {0, 1, 2}, new int[] {3, 4, 5}, new int[] {6, 7, 8}, new int[] {9, -1, -1}),
          epoch.indices());
    }
  }

  @Test
  void rollOverCarriesTheLeftoversIntoTheNextEpochs() {
    try (BatchProvider<? extends Batch> p = build(N, policy(LastBatch.ROLL_OVER))) {
      List<List<List<Long>>> policy = List.of(
          ids(new int[] {0, 1, 2}, new int[] {3, 4, 5}, new int[] {6, 7, 8}),
          ids(new int[] {9, 0, 1}, new int[] {2, 3, 4}, new int[] {5, 6, 7}),
          ids(new int[] {8, 9, 0}, new int[] {1, 2, 3}, new int[] {4, 5, 6}, new int[] {7, 8, 9}),
          // 30 samples in three epochs: nothing is carried into the fourth.
          ids(new int[] {0, 1, 2}, new int[] {3, 4, 5}, new int[] {6, 7, 8}));
      List<List<List<Long>>> expected = f().epochs(p, policy);
      for (int e = 0; e < expected.size(); e++) {
        assertEquals(expected.get(e), epoch(p).indices(), "epoch " + e);
      }
    }
  }

  /**
   * PAD_CONTINUE (MXNet's {@code round_batch}, {@link LastBatch#PAD_CONTINUE}): the rows, padding
   * included, are epoch 0's order, then epoch 1's, ...: epoch 0 ends {@code [9,0,1]} padded by 2,
   * epoch 1 skips 0 and 1 and ends {@code [8,9,0]} padded by 1, epoch 2 skips 0 and holds {@code
   * 1..9}; 30 rows in three epochs, so the fourth starts again like the first.
   */
  void padContinuePadsWithTheNextEpochsFirstSamples() {
    List<List<List<Long>>> cycle = List.of(
        ids(new int[] {0, 1, 2}, new int[] {3, 4, 5}, new int[] {6, 7, 8}, new int[] {9, 0, 1}),
        ids(new int[] {2, 3, 4}, new int[] {5, 6, 7}, new int[] {8, 9, 0}),
        ids(new int[] {1, 2, 3}, new int[] {4, 5, 6}, new int[] {7, 8, 9}));
    // 1 marks a padding row.
    List<List<List<Long>>> padRows = List.of(
        ids(new int[] {0, 0, 0}, new int[] {0, 0, 0}, new int[] {0, 0, 0}, new int[] {0, 1, 1}),
        ids(new int[] {0, 0, 0}, new int[] {0, 0, 0}, new int[] {0, 0, 1}),
        ids(new int[] {0, 0, 0}, new int[] {0, 0, 0}, new int[] {0, 0, 0}));
    List<List<List<Long>>> policy = new ArrayList<>(cycle);
    policy.addAll(cycle);
    List<List<List<Long>>> policyPads = new ArrayList<>(padRows);
    policyPads.addAll(padRows);
    try (BatchProvider<? extends Batch> p = build(N, policy(LastBatch.PAD_CONTINUE))) {
      List<List<List<Long>>> expected = f().epochs(p, policy);
      List<List<List<Long>>> expectedPads = f().epochs(p, policyPads);
      assertFalse(expected.isEmpty(), "the fixture's epochs() made no epoch of " + policy);
      for (int e = 0; e < expected.size(); e++) {
        Epoch epoch = epoch(p);
        assertEquals(expected.get(e), epoch.indices(), "epoch " + e);
        List<Integer> pads = expectedPads.get(e).stream()
            .map(b -> (int) b.stream().mapToLong(Long::longValue).sum()).toList();
        assertEquals(pads, epoch.pads(), "epoch " + e + "'s pad() per batch");
      }
    }
  }

  /**
   * Shuffled, the rows of epoch 0 and epoch 1's first three batches, padding included, are the
   * first 10 + 10 positions of the epochs' orders back to back: two permutations, the second
   * starting with the rows that padded epoch 0.
   */
  void shuffledPadContinueDeliversTheEpochsPermutationsOneAfterTheOther() {
    try (BatchProvider<? extends Batch> p = build(N, policy(LastBatch.PAD_CONTINUE).andThen(b -> b.shuffle(true).seed(5)))) {
      Epoch first = epoch(p);
      assertEquals(List.of(0, 0, 0, 2), first.pads(), "epoch 0's pad() per batch");
      List<Long> rows = new ArrayList<>(first.flat());
      Epoch second = epoch(p);
      assertTrue(second.indices().size() >= 3, "epoch 1 has fewer than 3 batches: " + second.indices());
      second.indices().subList(0, 3).forEach(rows::addAll);
      assertEquals(range(N), rows.subList(0, N).stream().sorted().toList(), "epoch 0's order: " + first.indices());
      assertEquals(range(N), rows.subList(N, 2 * N).stream().sorted().toList(),
          "epoch 1's order, from the rows that padded epoch 0: " + first.indices() + " then " + second.indices());
      assertNotEquals(rows.subList(0, N), rows.subList(N, 2 * N), "two epochs drew the same order");
    }
  }

  void aRestoredStateSkipsThePadContinueSamples(int epochsBefore, int delivered) {
    resumes(shuffledIfCapable(7).andThen(policy(LastBatch.PAD_CONTINUE)), epochsBefore, delivered);
  }

  // ---- 0: capabilities: the tests of each, or the counter-tests of its refusal ----

  @TestFactory
  Stream<DynamicNode> shuffleCapability() {
    return capability(Capability.SHUFFLE,
        List.of(test("shuffle delivers a permutation per epoch", this::shuffleDeliversAPermutationPerEpoch),
            test("the seed determines the order of every epoch", this::theSeedDeterminesTheOrderOfEveryEpoch)),
        List.of(test("shuffle(true) is refused at build, naming shuffle", this::shuffleIsRefusedAtBuild)));
  }

  @TestFactory
  Stream<DynamicNode> evenShardsCapability() {
    return capability(Capability.EVEN_SHARDS,
        List.of(test("even shards of 10 samples", () -> evenShardsGiveEveryPartTheSameNumberOfSamples(10)),
            test("even shards of 11 samples", () -> evenShardsGiveEveryPartTheSameNumberOfSamples(11))),
        List.of(test("evenShards(true) is refused at build, naming evenShards", this::evenShardsAreRefusedAtBuild)));
  }

  @TestFactory
  Stream<DynamicNode> resumeCapability() {
    List<DynamicTest> declared = new ArrayList<>();
    declared.add(test("saveState() gives a state", this::aResumableProviderSavesAState));
    for (int delivered : new int[] {0, 1, 2, -1}) {
      declared.add(test("a state saved after " + delivered + " batches (-1: all) yields the batches that followed",
          () -> aRestoredStateYieldsExactlyTheBatchesThatFollowed(delivered)));
    }
    for (int delivered : new int[] {0, 1, 2, -1}) {
      declared.add(test("a state saved after " + delivered + " batches (-1: all) of epoch 1 carries the roll-over "
          + "samples", () -> aRestoredStateCarriesTheRollOverSamples(delivered)));
    }
    declared.add(test("a seed that is not a number is named", this::decodingAStateWhoseSeedIsNotANumberNamesTheSeed));
    declared.add(test("a position beyond the epoch is named with the valid range",
        this::restoringAPositionBeyondTheEpochNamesThePositionAndTheValidRange));
    declared.add(test("an epoch that cannot advance is named", this::restoringAnEpochThatCannotAdvanceNamesTheEpoch));
    return capability(Capability.RESUME, declared,
        List.of(test("the provider is not Resumable, or its saveState() throws UnsupportedOperationException",
            this::aProviderThatCannotResumeSaysSo)));
  }

  @TestFactory
  Stream<DynamicNode> threadedCapability() {
    return capability(Capability.THREADED,
        List.of(test("closing mid-epoch stops every thread", this::closingMidEpochStopsEveryThread),
            test("a new epoch stops the previous epoch's threads", this::aNewEpochStopsThePreviousEpochsThreads),
            test("a dropped iterator's threads end once it is collected",
                this::aDroppedIteratorsThreadsEndOnceItIsCollected)),
        List.of(test("an epoch starts no minibatch- thread", this::aProviderWithoutThreadsStartsNone)));
  }

  @TestFactory
  Stream<DynamicNode> padContinueCapability() {
    List<DynamicTest> declared = new ArrayList<>();
    declared.add(test("PAD_CONTINUE pads with the next epoch's first samples, which that epoch then skips",
        this::padContinuePadsWithTheNextEpochsFirstSamples));
    if (capable(Capability.SHUFFLE)) {
      declared.add(test("shuffled, PAD_CONTINUE delivers the epochs' permutations one after the other",
          this::shuffledPadContinueDeliversTheEpochsPermutationsOneAfterTheOther));
    }
    if (capable(Capability.RESUME)) {
      declared.add(test("a state saved at the end of epoch 0 under PAD_CONTINUE skips its padding samples",
          () -> aRestoredStateSkipsThePadContinueSamples(0, -1)));
      for (int delivered : new int[] {0, 1, 2, -1}) {
        declared.add(test("a state saved after " + delivered + " batches (-1: all) of epoch 1 under PAD_CONTINUE "
            + "yields the batches that followed", () -> aRestoredStateSkipsThePadContinueSamples(1, delivered)));
      }
    }
    return capability(Capability.PAD_CONTINUE, declared,
        List.of(test("lastBatch(PAD_CONTINUE) is refused at build, naming PAD_CONTINUE",
            this::padContinueIsRefusedAtBuild)));
  }

  @TestFactory
  Stream<DynamicNode> failingSampleCapability() {
    return capability(Capability.FAILING_SAMPLE,
        List.of(test("a failing sample names the stage and the sample and stops every thread",
            this::aFailingSampleNamesTheStageAndTheSampleAndStopsEveryThread)),
        List.of(test("the fixture cannot inject a failure (buildFailing refuses): no user code runs per sample",
            this::aFixtureWithoutFailingSampleCannotInjectOne)));
  }

  void shuffleIsRefusedAtBuild() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> build(N, policy(LastBatch.PARTIAL).andThen(b -> b.shuffle(true).seed(1))).close());
    assertTrue(String.valueOf(e.getMessage()).contains("shuffle"), "the message should name shuffle: " + e);
  }

  void evenShardsAreRefusedAtBuild() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> build(N, policy(LastBatch.PARTIAL).andThen(b -> b.shard(3, 0).evenShards(true).seed(1))).close());
    assertTrue(String.valueOf(e.getMessage()).contains("evenShards"), "the message should name evenShards: " + e);
  }

  void padContinueIsRefusedAtBuild() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> build(N, policy(LastBatch.PAD_CONTINUE)).close());
    assertTrue(String.valueOf(e.getMessage()).contains("PAD_CONTINUE"), "the message should name PAD_CONTINUE: " + e);
  }

  void aProviderThatCannotResumeSaysSo() {
    try (BatchProvider<? extends Batch> p = build(N, policy(LastBatch.PARTIAL))) {
      if (p instanceof Resumable r) {
        assertThrows(UnsupportedOperationException.class, r::saveState,
            "a provider that declares no RESUME but implements Resumable must refuse, not save a wrong state");
      }
    }
  }

  void aResumableProviderSavesAState() {
    try (BatchProvider<? extends Batch> p = build(N, policy(LastBatch.PARTIAL))) {
      assertNotNull(resumable(p).saveState());
    }
  }

  void aProviderWithoutThreadsStartsNone() {
    Set<Thread> before = EngineThreads.live();
    try (BatchProvider<? extends Batch> p = build(N, policy(LastBatch.PARTIAL))) {
      assertEquals(PARTIAL_EPOCH, epoch(p).indices());
      assertTrue(EngineThreads.startedSince(before).isEmpty(),
          "a provider that declares no THREADED started " + EngineThreads.startedSince(before));
    }
  }

  /**
   * Without {@code FAILING_SAMPLE} the failure path goes unchecked, which is right only for a
   * provider that runs no user code per sample (arrays, CSV, MNIST): a fixture that can inject a
   * failure but does not declare it would hide the check.
   */
  void aFixtureWithoutFailingSampleCannotInjectOne() {
    RuntimeException failure = new IllegalStateException("injected");
    assertThrows(UnsupportedOperationException.class,
        () -> f().buildFailing(N, 4, failure, policy(LastBatch.PARTIAL)).close(),
        "the fixture implements buildFailing: declare FAILING_SAMPLE so the failure path is checked");
  }

  // ---- 3: shuffle ----

  /** The first {@code epochs} epochs' sample orders of a shuffled provider of {@code n} samples. */
  private List<List<Long>> shuffledOrders(int n, long seed, int epochs) {
    List<List<Long>> out = new ArrayList<>();
    try (BatchProvider<? extends Batch> p = build(n, b -> b.batchSize(7).shuffle(true).seed(seed))) {
      for (int e = 0; e < epochs; e++) {
        out.add(epoch(p).samples());
      }
    }
    return out;
  }

  void shuffleDeliversAPermutationPerEpoch() {
    int n = 50;
    List<List<Long>> orders = shuffledOrders(n, 5, 2);
    for (int e = 0; e < orders.size(); e++) {
      assertEquals(range(n), orders.get(e).stream().sorted().toList(), "epoch " + e + " is not a permutation");
    }
    assertNotEquals(range(n), orders.get(0), "shuffle left the order unchanged");
    assertNotEquals(orders.get(0), orders.get(1), "two epochs drew the same order");
  }

  void theSeedDeterminesTheOrderOfEveryEpoch() {
    int n = 50;
    assertEquals(shuffledOrders(n, 5, 3), shuffledOrders(n, 5, 3), "the same seed gave other orders");
    assertNotEquals(shuffledOrders(n, 5, 1), shuffledOrders(n, 6, 1), "another seed gave the same order");
  }

  // ---- 4: shards ----

  // Contiguous parts, asked for explicitly: a provider whose shards are elastic by default
  // (ShardProvider) deals whole batches, whose parts may differ by more than one sample.

  @ParameterizedTest(name = "n = {0}")
  @ValueSource(ints = {10, 11})
  void shardsAreDisjointAndCoverEverySampleInEveryEpoch(int n) {
    int k = 3;
    int epochs = 2;
    // parts.get(p).get(e): the samples part p read in epoch e.
    List<List<List<Long>>> parts = new ArrayList<>();
    for (int part = 0; part < k; part++) {
      int p = part;
      List<List<Long>> byEpoch = new ArrayList<>();
      try (BatchProvider<? extends Batch> provider = build(n, shuffledIfCapable(3)
          .andThen(b -> b.batchSize(BATCH).shard(k, p).elasticShards(false)))) {
        for (int e = 0; e < epochs; e++) {
          byEpoch.add(epoch(provider).samples());
        }
      }
      parts.add(byEpoch);
    }
    for (int e = 0; e < epochs; e++) {
      Set<Long> seen = new HashSet<>();
      List<Integer> sizes = new ArrayList<>();
      for (int p = 0; p < k; p++) {
        List<Long> samples = parts.get(p).get(e);
        sizes.add(samples.size());
        for (long i : samples) {
          assertTrue(seen.add(i), "epoch " + e + ": sample " + i + " is read twice (parts " + parts + ")");
        }
      }
      assertEquals(new HashSet<>(range(n)), seen, "epoch " + e + ": the parts do not cover every sample");
      int min = sizes.stream().mapToInt(Integer::intValue).min().orElseThrow();
      int max = sizes.stream().mapToInt(Integer::intValue).max().orElseThrow();
      assertTrue(max - min <= 1, "epoch " + e + ": part sizes " + sizes + " differ by more than one");
    }
  }

  void evenShardsGiveEveryPartTheSameNumberOfSamples(int n) {
    int k = 3;
    int each = (n + k - 1) / k;
    Set<Long> seen = new HashSet<>();
    for (int part = 0; part < k; part++) {
      int p = part;
      try (BatchProvider<? extends Batch> provider = build(n, shuffledIfCapable(3)
          .andThen(b -> b.batchSize(BATCH).shard(k, p).elasticShards(false).evenShards(true)))) {
        List<Long> samples = epoch(provider).samples();
        assertEquals(each, samples.size(), "part " + p + " of " + k + " read " + samples);
        seen.addAll(samples);
      }
    }
    assertEquals(new HashSet<>(range(n)), seen, "the even parts do not cover every sample");
  }

  // ---- 5: resume ----

  /**
   * Delivers {@code delivered} batches (-1: all) of the epoch after {@code epochsBefore} complete
   * ones, saves the state, and checks that a fresh provider restored from the state's text yields
   * exactly the batches that followed: the rest of that epoch, then the next one.
   */
  private void resumes(Consumer<? super ProviderBuilder<?>> settings, int epochsBefore, int delivered) {
    String saved;
    List<List<List<Long>>> expected = new ArrayList<>();
    try (BatchProvider<? extends Batch> p = build(N, settings)) {
      for (int e = 0; e < epochsBefore; e++) {
        epoch(p);
      }
      try (BatchIterator<? extends Batch> it = p.iterator()) {
        if (delivered < 0) {
          Batches.rest(f(), it, null);
        } else {
          for (int j = 0; j < delivered; j++) {
            assertTrue(it.hasNext(), "the epoch ended after " + j + " batches");
            Batches.check(f(), it.next(), null, "batch " + j);
          }
        }
        saved = resumable(p).saveState().encode();
        Epoch rest = Batches.rest(f(), it, null);
        if (!rest.indices().isEmpty()) {
          expected.add(rest.indices());
        }
      }
      expected.add(epoch(p).indices());
    }
    try (BatchProvider<? extends Batch> q = build(N, settings)) {
      resumable(q).restoreState(IterationState.decode(saved));
      List<List<List<Long>>> resumed = new ArrayList<>();
      for (int e = 0; e < expected.size(); e++) {
        resumed.add(epoch(q).indices());
      }
      assertEquals(expected, resumed, "restored from " + saved);
    }
  }

  void aRestoredStateYieldsExactlyTheBatchesThatFollowed(int delivered) {
    resumes(shuffledIfCapable(7).andThen(policy(LastBatch.PARTIAL)), 0, delivered);
  }

  void aRestoredStateCarriesTheRollOverSamples(int delivered) {
    resumes(shuffledIfCapable(7).andThen(policy(LastBatch.ROLL_OVER)), 1, delivered);
  }

  void decodingAStateWhoseSeedIsNotANumberNamesTheSeed() {
    try (BatchProvider<? extends Batch> p = build(N, policy(LastBatch.PARTIAL))) {
      String text = resumable(p).saveState().encode();
      String bad = text.replaceFirst(";seed=-?[0-9]+;", ";seed=twelve;");
      assertNotEquals(text, bad, "no seed field in " + text);
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> IterationState.decode(bad));
      assertTrue(String.valueOf(e.getMessage()).contains("seed"), "the message should name 'seed': " + e);
    }
  }

  /** {@code s} at {@code position}, and so are its parts (the wrapped providers of a wrapper's state). */
  private static IterationState atPosition(IterationState s, int position) {
    List<IterationState> parts = s.parts().stream().map(p -> atPosition(p, position)).toList();
    return new IterationState(s.seed(), s.epoch(), position, s.carried(), s.settings(), parts);
  }

  void restoringAPositionBeyondTheEpochNamesThePositionAndTheValidRange() {
    try (BatchProvider<? extends Batch> p = build(N, policy(LastBatch.PARTIAL))) {
      IterationState s = resumable(p).saveState();
      // Epoch 0 has 4 batches: positions 0..4 are valid (4 = the epoch was read to its end).
      IterationState bad = atPosition(s, 5);
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> resumable(p).restoreState(bad),
          "restoring position 5 of an epoch of 4 batches");
      String m = String.valueOf(e.getMessage());
      assertTrue(m.contains("position") && m.matches("(?s).*\\b4\\b.*"),
          "the message should name 'position' and the valid range (up to 4 batches): " + m);
    }
  }

  void restoringAnEpochThatCannotAdvanceNamesTheEpoch() {
    try (BatchProvider<? extends Batch> p = build(N, policy(LastBatch.PARTIAL))) {
      IterationState s = resumable(p).saveState();
      // Rejected where it is made (a state that cannot advance cannot exist) or where it is restored.
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> resumable(p).restoreState(
          new IterationState(s.seed(), Integer.MAX_VALUE, 0, s.carried(), s.settings(), s.parts())),
          "restoring epoch Integer.MAX_VALUE (the epoch after it does not exist)");
      assertTrue(String.valueOf(e.getMessage()).contains("epoch"), "the message should name 'epoch': " + e);
    }
  }

  // ---- 6: nested use on one thread ----

  // ---- reader settings: honoured or refused on every path, never dropped ----

  @Test
  void readerThreadsAreHonouredOrRefused() {
    honouredOrRefused("readers(3)", b -> b.readers(3), stats -> true);
  }

  @Test
  void autotuningIsHonouredOrRefused() {
    honouredOrRefused("autotune", b -> b.autotune(new Settings.Autotune(3, 64L << 20)),
        stats -> !stats.tuning().isEmpty());
  }

  /**
   * {@code setting} is refused at build with a message, or it changes how the batches are made (the
   * epoch's stages differ from those with {@code readers(0)}, unless the provider refuses that:
   * then it always runs readers, and {@code shows} holds of its stats) while the batches hold the
   * same samples: a setting that changes nothing was dropped.
   */
  private void honouredOrRefused(String what, Consumer<ProviderBuilder<?>> setting,
      java.util.function.Predicate<PipelineStats> shows) {
    PipelineStats without = null;
    try (BatchProvider<? extends Batch> p = build(N, b -> policy(LastBatch.PARTIAL).andThen(c -> c.readers(0)).accept(b))) {
      without = stats(p);
    } catch (IllegalArgumentException alwaysReaders) {
      // An image provider, an HDF5 process function: the batches are always made on readers.
    }
    BatchProvider<? extends Batch> p;
    try {
      p = build(N, b -> {
        policy(LastBatch.PARTIAL).accept(b);
        setting.accept(b);
      });
    } catch (IllegalArgumentException refused) {
      assertFalse(String.valueOf(refused.getMessage()).isBlank(), what + " refused without a message");
      return;
    }
    try (p) {
      assertEquals(PARTIAL_EPOCH, epoch(p).indices(), what);
      PipelineStats with = stats(p);
      if (without != null) {
        assertNotEquals(stages(without), stages(with), what + " was accepted and changed nothing: " + with);
      }
      assertTrue(shows.test(with), what + ": " + with);
    }
  }

  private static PipelineStats stats(BatchProvider<? extends Batch> p) {
    try (BatchIterator<? extends Batch> it = p.iterator()) {
      while (it.hasNext()) {
        it.next();
      }
      return PipelineStats.of(it);
    }
  }

  private static List<String> stages(PipelineStats stats) {
    return stats.stages().stream().map(s -> s.name() + "[" + s.workers() + "]").toList();
  }

  @Test
  void aNestedLoopRunsAWholeEpochAndTheOuterIteratorThenRefuses() {
    try (BatchProvider<? extends Batch> p = build(N, policy(LastBatch.PARTIAL))) {
      BatchIterator<? extends Batch> outer = p.iterator();
      assertTrue(outer.hasNext());
      assertEquals(PARTIAL_EPOCH.get(0), Batches.check(f(), outer.next(), null, "outer batch 0"));
      assertEquals(PARTIAL_EPOCH, epoch(p).indices(), "the inner loop's epoch");
      assertThrows(IllegalStateException.class, outer::hasNext, "outer.hasNext() after the inner loop");
      assertThrows(IllegalStateException.class, outer::next, "outer.next() after the inner loop");
      assertEquals(PARTIAL_EPOCH, epoch(p).indices(), "the epoch after");
    }
  }

  // ---- 7: concurrent use ----

  @Test
  void threadsSharingAProviderNeverSeeAWrongRow() throws InterruptedException {
    try (BatchProvider<? extends Batch> p = build(LARGE, shuffledIfCapable(11).andThen(b -> b.batchSize(7)))) {
      SharedUse.Outcome o = SharedUse.run(f(), p, LARGE, 2, 200, 2000);
      o.assertConforming();
    }
  }

  // ---- 8: closing and threads ----

  @Test
  void aClosedProviderRefusesToIterate() {
    BatchProvider<? extends Batch> p = build(N, policy(LastBatch.PARTIAL));
    try {
      BatchIterator<? extends Batch> it = p.iterator();
      Batches.check(f(), it.next(), null, "batch 0");
      p.close();
      assertThrows(IllegalStateException.class, () -> {
        it.hasNext();
        it.next();
      }, "the iterator held across close()");
      assertThrows(IllegalStateException.class, () -> p.iterator().hasNext(), "a new iteration of the closed provider");
    } finally {
      p.close();
    }
  }

  void closingMidEpochStopsEveryThread() throws InterruptedException {
    Set<Thread> before = EngineThreads.live();
    BatchProvider<? extends Batch> p = build(LARGE, policy(LastBatch.PARTIAL));
    try {
      BatchIterator<? extends Batch> it = p.iterator();
      Batches.check(f(), it.next(), null, "batch 0");
      assertFalse(EngineThreads.startedSince(before).isEmpty(),
          "the fixture declares THREADED but no minibatch-* thread runs in mid-epoch");
      p.close();
      Set<Thread> alive = EngineThreads.awaitOnly(before, THREAD_WAIT_SECONDS);
      assertTrue(alive.isEmpty(), "threads still alive " + THREAD_WAIT_SECONDS + " s after close(): "
          + EngineThreads.describe(alive));
      // Also keeps the iterator reachable until here, so no cleaner could have stopped the threads.
      assertThrows(IllegalStateException.class, it::hasNext, "the iterator held across close()");
    } finally {
      p.close();
    }
  }

  /**
   * Superseded epochs leave no threads behind. An engine may start threads per epoch or reuse them
   * across epochs, so this counts rather than names them: after three epochs abandoned half-read
   * (their iterators still held, so no cleaner can help), no more engine threads may run than for
   * one epoch.
   */
  void aNewEpochStopsThePreviousEpochsThreads() throws InterruptedException {
    try (BatchProvider<? extends Batch> p = build(LARGE, policy(LastBatch.PARTIAL))) {
      Set<Thread> built = EngineThreads.live();
      List<BatchIterator<? extends Batch>> abandoned = new ArrayList<>();
      BatchIterator<? extends Batch> first = p.iterator();
      for (int j = 0; j < 3; j++) {
        Batches.check(f(), first.next(), null, "first epoch, batch " + j);
      }
      Set<Thread> oneEpoch = EngineThreads.startedSince(built);
      assertFalse(oneEpoch.isEmpty(), "the fixture declares THREADED but no minibatch-* thread runs in mid-epoch");
      abandoned.add(first);
      for (int e = 1; e < 3; e++) {
        BatchIterator<? extends Batch> it = p.iterator();
        Batches.check(f(), it.next(), null, "epoch " + e + ", batch 0");
        abandoned.add(it);
      }
      BatchIterator<? extends Batch> last = p.iterator();
      List<Long> samples = new ArrayList<>(Batches.check(f(), last.next(), null, "last epoch, batch 0"));
      Set<Thread> alive = EngineThreads.awaitAtMost(built, oneEpoch.size(), THREAD_WAIT_SECONDS);
      assertTrue(alive.size() <= oneEpoch.size(), "after 3 epochs were abandoned half-read for a new one, "
          + alive.size() + " engine threads run, one epoch ran " + oneEpoch.size() + " " + EngineThreads.describe(oneEpoch)
          + "; still running: " + EngineThreads.describe(alive));
      for (BatchIterator<? extends Batch> it : abandoned) {
        assertThrows(IllegalStateException.class, it::hasNext, "a superseded iterator");
      }
      samples.addAll(Batches.rest(f(), last, null).samples());
      assertEquals(range(LARGE), samples, "the new epoch");
    }
  }

  void aDroppedIteratorsThreadsEndOnceItIsCollected() throws InterruptedException {
    Set<Thread> before = EngineThreads.live();
    try (BatchProvider<? extends Batch> p = build(LARGE, policy(LastBatch.PARTIAL))) {
      assertTrue(breakOutOfALoop(p, before), "the fixture declares THREADED but no minibatch-* thread runs in mid-epoch");
      Set<Thread> alive = EngineThreads.awaitOnly(before, THREAD_WAIT_SECONDS);
      assertTrue(alive.isEmpty(), "threads of an iterator dropped mid-epoch still run " + THREAD_WAIT_SECONDS
          + " s later, with garbage collections: " + EngineThreads.describe(alive));
      assertEquals(range(LARGE), epoch(p).samples(), "the epoch after");
    }
  }

  /** Breaks out of a for-each loop after two batches; whether engine threads ran by then. */
  private boolean breakOutOfALoop(BatchProvider<? extends Batch> p, Set<Thread> before) {
    int n = 0;
    for (Batch b : p) {
      Batches.check(f(), b, null, "batch " + n);
      if (++n == 2) {
        break;
      }
    }
    return !EngineThreads.startedSince(before).isEmpty();
  }

  // ---- 9: failures ----

  void aFailingSampleNamesTheStageAndTheSampleAndStopsEveryThread() throws InterruptedException {
    int k = 4;
    RuntimeException injected = new IllegalStateException("injected failure of sample " + k);
    Set<Thread> before = EngineThreads.live();
    BatchProvider<? extends Batch> p = f().buildFailing(N, k, injected, policy(LastBatch.PARTIAL));
    try {
      List<Long> delivered = new ArrayList<>();
      RuntimeException thrown = readUntilFailure(p, delivered);
      assertNotNull(thrown, "sample " + k + " fails but the epoch ended normally; delivered " + delivered);
      for (long i : delivered) {
        assertTrue(i < k, "a batch holding sample " + i + " was delivered, at or after the failing sample " + k);
      }
      StageFailedException stage = Failures.stageFailure(thrown);
      assertNotNull(stage, "expected a StageFailedException in the cause chain of " + Failures.chain(thrown));
      assertFalse(stage.stage().isBlank(), "the stage has no name");
      assertTrue(String.valueOf(stage.getMessage()).contains(stage.stage()), "the message should name the stage: " + stage);
      assertEquals(k, stage.sampleIndex(), "the failing sample's index, in " + Failures.chain(thrown));
      assertSame(injected, Failures.root(thrown), "the injected exception should be the root cause of "
          + Failures.chain(thrown));
      Set<Thread> alive = EngineThreads.awaitOnly(before, THREAD_WAIT_SECONDS);
      assertTrue(alive.isEmpty(), "threads still alive " + THREAD_WAIT_SECONDS + " s after the failure reached the consumer: "
          + EngineThreads.describe(alive));
    } finally {
      p.close();
    }
  }

  /**
   * Reads epochs in a for-each loop until one throws; returns what it threw, or null if the epoch
   * ended. The iterator is unreachable once this returns, as after a failing loop in user code.
   */
  private @Nullable RuntimeException readUntilFailure(BatchProvider<? extends Batch> p, List<Long> delivered) {
    try {
      for (Batch b : p) {
        delivered.addAll(Batches.check(f(), b, null, "batch before the failure"));
      }
      return null;
    } catch (RuntimeException e) {
      return e;
    }
  }
}
