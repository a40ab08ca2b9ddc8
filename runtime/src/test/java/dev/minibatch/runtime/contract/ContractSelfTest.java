package dev.minibatch.runtime.contract;

import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.minibatch.DataDesc;
import dev.minibatch.LastBatch;
import dev.minibatch.runtime.array.ArrayDataProvider;
import dev.minibatch.runtime.Batch;
import dev.minibatch.runtime.BatchIterator;
import dev.minibatch.runtime.BatchProvider;
import dev.minibatch.runtime.IterationState;
import dev.minibatch.runtime.NamedBatch;
import dev.minibatch.runtime.ProviderBuilder;
import dev.minibatch.runtime.Resumable;
import dev.minibatch.runtime.internal.settings.Sampling;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.nd4j.linalg.factory.Nd4j;

/**
 * The contract can fail: providers broken on purpose (an {@link ArrayDataProvider} behind a
 * decorator) fail the tests meant to catch each breakage. Calls the contract's test methods
 * directly (also those its capability containers run), expecting an {@link AssertionError}. Not part
 * of the test-jar.
 */
class ContractSelfTest {
  /** Released after the tests: the threads the leaking provider starts wait for it. */
  private static final CountDownLatch LEAKED = new CountDownLatch(1);

  @AfterAll
  static void releaseLeakedThreads() {
    LEAKED.countDown();
  }

  /** Ways to break a provider. */
  enum Breakage {
    /** Row 0 of every batch gets another label. */
    CORRUPT_LABEL,
    /** PAD_CONSTANT fills data with the label constant and labels with the data constant. */
    SWAPPED_PADDING,
    /** The shuffle seed is replaced by a new one for every provider. */
    IGNORED_SEED,
    /** PAD_CONTINUE pads as PAD_WRAP does: with the epoch's own first samples, skipping none next epoch. */
    PAD_CONTINUE_AS_WRAP,
    /** Every iteration runs on a provider of its own: a superseded iterator goes on. */
    NO_SUPERSEDING,
    /** Every epoch starts a {@code minibatch-} thread that nothing stops. */
    LEAKED_THREAD,
    /**
     * The fixture declares no capability, though its provider shuffles, shards evenly, resumes and
     * starts a thread per epoch, and the fixture can inject a failing sample.
     */
    UNDECLARED_CAPABILITIES
  }

  /**
   * A contract run on a provider broken by {@code breakage}. Private, so JUnit does not discover it
   * as a test class of its own (a test filter like {@code *Contract*} would match its name).
   */
  private static final class Broken extends ProviderContract {
    private final Breakage breakage;

    Broken(Breakage breakage) {
      this.breakage = breakage;
    }

    @Override
    protected ProviderFixture fixture() {
      return new BrokenFixture(breakage);
    }
  }

  private static void fails(Executable test) {
    assertThrows(AssertionError.class, test, "the contract did not catch the breakage");
  }

  @Test
  void aWrongLabelFailsEveryTestThatReadsBatches() {
    Broken c = new Broken(Breakage.CORRUPT_LABEL);
    List<Executable> tests = List.of(c::theFixtureTellsEverySampleApart, c::batchSizeAndDescriptionsMatchTheBatches,
        c::partialDeliversASmallerLastBatch, c::discardDropsTheIncompleteBatch,
        c::padWrapFillsTheLastBatchWithTheEpochsFirstSamples, c::padConstantFillsDataAndLabelsWithTheirOwnConstants,
        c::padConstantTakesAPerNameValueBeforeTheRoleDefault, c::rollOverCarriesTheLeftoversIntoTheNextEpochs,
        c::shuffleDeliversAPermutationPerEpoch, c::theSeedDeterminesTheOrderOfEveryEpoch,
        () -> c.shardsAreDisjointAndCoverEverySampleInEveryEpoch(10),
        () -> c.evenShardsGiveEveryPartTheSameNumberOfSamples(10),
        () -> c.aRestoredStateYieldsExactlyTheBatchesThatFollowed(1),
        () -> c.aRestoredStateCarriesTheRollOverSamples(1),
        c::aNestedLoopRunsAWholeEpochAndTheOuterIteratorThenRefuses, c::threadsSharingAProviderNeverSeeAWrongRow,
        c::aClosedProviderRefusesToIterate);
    tests.forEach(ContractSelfTest::fails);
  }

  @Test
  void swappedPaddingConstantsFailThePadConstantTest() {
    fails(new Broken(Breakage.SWAPPED_PADDING)::padConstantFillsDataAndLabelsWithTheirOwnConstants);
  }

  @Test
  void anIgnoredSeedFailsTheSeedTest() {
    fails(new Broken(Breakage.IGNORED_SEED)::theSeedDeterminesTheOrderOfEveryEpoch);
  }

  @Test
  void padContinueThatWrapsFailsThePadContinueTests() {
    Broken c = new Broken(Breakage.PAD_CONTINUE_AS_WRAP);
    fails(c::padContinuePadsWithTheNextEpochsFirstSamples);
    fails(c::shuffledPadContinueDeliversTheEpochsPermutationsOneAfterTheOther);
  }

  @Test
  void anIteratorThatGoesOnAfterANewOneStartedFailsTheNestedTest() {
    fails(new Broken(Breakage.NO_SUPERSEDING)::aNestedLoopRunsAWholeEpochAndTheOuterIteratorThenRefuses);
  }

  @Test
  void aThreadThatOutlivesItsEpochFailsTheThreadTests() {
    Broken c = new Broken(Breakage.LEAKED_THREAD);
    fails(c::closingMidEpochStopsEveryThread);
    fails(c::aNewEpochStopsThePreviousEpochsThreads);
  }

  @Test
  void capabilitiesTheFixtureDoesNotDeclareFailTheirCounterTests() {
    Broken c = new Broken(Breakage.UNDECLARED_CAPABILITIES);
    List<Executable> tests = List.of(c::shuffleIsRefusedAtBuild, c::evenShardsAreRefusedAtBuild,
        c::aProviderThatCannotResumeSaysSo, c::aProviderWithoutThreadsStartsNone,
        c::aFixtureWithoutFailingSampleCannotInjectOne, c::padContinueIsRefusedAtBuild);
    tests.forEach(ContractSelfTest::fails);
  }

  /** {@link IndexedSamples} in an {@link ArrayDataProvider}, behind a decorator that breaks it. */
  private static final class BrokenFixture implements ProviderFixture {
    private static final AtomicLong SEEDS = new AtomicLong(1000);
    private final Breakage breakage;

    BrokenFixture(Breakage breakage) {
      this.breakage = breakage;
    }

    @Override
    public Set<Capability> capabilities() {
      if (breakage == Breakage.UNDECLARED_CAPABILITIES) {
        return EnumSet.noneOf(Capability.class);
      }
      Set<Capability> c = ProviderFixture.randomAccess();
      if (breakage == Breakage.LEAKED_THREAD) {
        c.add(Capability.THREADED);
      }
      return c;
    }

    @Override
    public BatchProvider<NamedBatch> build(int numSamples, Consumer<? super ProviderBuilder<?>> settings) {
      Consumer<ProviderBuilder<?>> broken = b -> {
        settings.accept(b);
        if (breakage == Breakage.SWAPPED_PADDING) {
          b.dataPadding(-3).labelPadding(-7);
        } else if (breakage == Breakage.IGNORED_SEED) {
          b.seed(SEEDS.incrementAndGet());
        } else if (breakage == Breakage.PAD_CONTINUE_AS_WRAP
            && new Probe().apply(settings).resolved().lastBatch() == LastBatch.PAD_CONTINUE) {
          b.lastBatch(LastBatch.PAD_WRAP);
        }
      };
      Supplier<ArrayDataProvider> make = () -> ArrayDataProvider.builder()
          .data(Nd4j.create(IndexedSamples.data(0, numSamples)))
          .label(Nd4j.createFromArray(IndexedSamples.labels(0, numSamples)))
          .apply(broken)
          .build();
      return new Decorated(make, breakage);
    }

    @Override
    public boolean holds(Batch batch, int row, long sample) {
      return IndexedSamples.holds(batch, row, sample);
    }

    @Override
    public BatchProvider<? extends Batch> buildFailing(int numSamples, int failingSample, RuntimeException failure,
        Consumer<? super ProviderBuilder<?>> settings) {
      if (breakage == Breakage.UNDECLARED_CAPABILITIES) {
        return build(numSamples, settings); // "can inject": the counter-test only asks whether it refuses
      }
      return ProviderFixture.super.buildFailing(numSamples, failingSample, failure, settings);
    }
  }

  /** Settings applied to nothing, to read them back as resolved. */
  private static final class Probe extends ProviderBuilder<Probe> {
    Sampling resolved() {
      return Sampling.resolve(settings());
    }
  }

  /** Delegates to an {@link ArrayDataProvider}, breaking what {@link Breakage} says. */
  private static final class Decorated implements BatchProvider<NamedBatch>, Resumable {
    private final Supplier<ArrayDataProvider> make;
    private final ArrayDataProvider provider;
    private final Breakage breakage;

    Decorated(Supplier<ArrayDataProvider> make, Breakage breakage) {
      this.make = make;
      this.provider = make.get();
      this.breakage = breakage;
    }

    @Override
    public int batchSize() {
      return provider.batchSize();
    }

    @Override
    public List<DataDesc> provideData() {
      return provider.provideData();
    }

    @Override
    public List<DataDesc> provideLabel() {
      return provider.provideLabel();
    }

    @Override
    public BatchIterator<NamedBatch> iterator() {
      BatchIterator<NamedBatch> it = breakage == Breakage.NO_SUPERSEDING ? make.get().iterator() : provider.iterator();
      if (breakage == Breakage.LEAKED_THREAD || breakage == Breakage.UNDECLARED_CAPABILITIES) {
        Thread t = new Thread(() -> {
          try {
            LEAKED.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        }, "minibatch-selftest-leak");
        t.setDaemon(true);
        t.start();
      }
      return new BatchIterator<>() {
        @Override
        public boolean hasNext() {
          return it.hasNext();
        }

        @Override
        public NamedBatch next() {
          NamedBatch b = it.next();
          if (breakage == Breakage.CORRUPT_LABEL) {
            b.label().get(0).putScalar(0, -1);
          }
          return b;
        }

        @Override
        public void close() {
          it.close();
        }
      };
    }

    @Override
    public IterationState saveState() {
      return provider.saveState();
    }

    @Override
    public void restoreState(IterationState state) {
      provider.restoreState(state);
    }

    @Override
    public void close() {
      provider.close();
    }
  }
}
