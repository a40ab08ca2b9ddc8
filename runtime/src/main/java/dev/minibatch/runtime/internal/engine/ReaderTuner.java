package dev.minibatch.runtime.internal.engine;

import dev.minibatch.runtime.Settings;
import dev.minibatch.runtime.pipeline.PipelineStats.Tuning;

/**
 * Chooses how many reader threads write and how many batches ahead, from what the consumer sees
 * (tf.data's AUTOTUNE, as a hill climb): one per engine, so a later epoch starts from what an
 * earlier one found. It is fed on the consumer's thread only, once per delivered batch, and
 * decides at the end of each measuring window (at least {@link #WINDOW_NANOS} and {@link
 * #WINDOW_BATCHES} batches): while the consumer waited for data, it tries no reader at all where
 * the consumer writes batches itself (copies from memory), then one more reader (up to the
 * budget's cpus), then twice as many batches ahead (up to the ring the memory budget allows), and
 * keeps a trial only when the batches delivered per second rose by {@link
 * Settings.Autotune#MIN_GAIN_PERCENT} % over both the window before it and the window after it
 * (the kept setting measured again); the first trial that does not pay ends that phase. It never changes which batch holds which samples, only who writes it and when.
 */
final class ReaderTuner {
  /** The shortest measuring window: long enough that a batch of a slow image pipeline is not all of it. */
  static final long WINDOW_NANOS = 300_000_000L;
  /** The fewest batches in a measuring window. */
  static final int WINDOW_BATCHES = 8;
  /** Below this share of waiting the consumer, not the loading, sets the pace: nothing to tune. */
  static final double IDLE_WAIT_SHARE = 0.05;

  private enum Phase { NONE, READERS, AHEAD, DONE }

  /** Which setting the current window measures: the kept one first, then a trial, then the kept one again. */
  private enum Step { BASE, TRIAL, RECHECK }

  private final String stage;
  private final Settings.Autotune budget;
  private final int mostReaders;
  /** Whether the consumer writes batches itself when it would wait, so no reader at all is a choice too. */
  private final boolean consumerWrites;
  private int mostAhead = 1;
  private long bufferBytes;
  private int readers = 1;
  private int ahead = 2;
  private Phase phase;
  private Step step = Step.BASE;
  private int keptReaders;
  private int keptAhead;
  private double keptRate;
  private int trialReaders;
  private int trialAhead;
  private double trialRate;
  private double trialWait;
  private int trials;

  private long windowStart;
  /** The consumer's waits in this window, and its epoch's total at its last batch. */
  private long windowWait;
  private long epochWaited;
  private int windowBatches;
  /** Batches of a new window not measured: the readers settle after a change or a new epoch. */
  private int settle;

  ReaderTuner(String stage, Settings.Autotune budget, int mostReaders, boolean consumerWrites) {
    this.stage = stage;
    this.budget = budget;
    this.mostReaders = mostReaders;
    this.consumerWrites = consumerWrites;
    this.phase = consumerWrites ? Phase.NONE : Phase.READERS;
  }

  /**
   * An epoch starts on a ring of {@code slots} buffers of {@code slotBytes} each: how far ahead
   * readers may write is capped by the ring. A window goes on across epochs (an epoch's start, its
   * readers filling the ring again, is part of what the consumer sees), so short epochs are
   * measured too.
   */
  synchronized void begin(int slots, long slotBytes) {
    mostAhead = Math.max(1, slots - 2);
    bufferBytes = slots * slotBytes;
    ahead = Math.min(ahead, mostAhead);
    epochWaited = 0;
    if (windowStart == 0) {
      restartWindow();
    }
  }

  /** The readers that write now. */
  synchronized int readers() {
    return readers;
  }

  /** The batches they may write ahead of the one the consumer waits for. */
  synchronized int ahead() {
    return ahead;
  }

  /**
   * The consumer took one more batch at {@code now}, having spent {@code waitedNanos} in all so far
   * in this epoch getting its batches (waiting for them, or writing them itself where the readers
   * copy from memory); true if the readers or how far ahead they write changed.
   */
  synchronized boolean delivered(long now, long waitedNanos) {
    long waited = waitedNanos - epochWaited;
    epochWaited = waitedNanos;
    if (phase == Phase.DONE) {
      return false;
    }
    if (settle > 0) {
      if (--settle == 0) {
        windowStart = now;
        windowWait = 0;
      }
      return false;
    }
    windowBatches++;
    windowWait += waited;
    long span = now - windowStart;
    if (windowBatches < WINDOW_BATCHES || span < WINDOW_NANOS) {
      return false;
    }
    double rate = windowBatches * 1e9 / span;
    double waitShare = windowWait / (double) span;
    return decide(rate, waitShare);
  }

  /**
   * The end of a window. Each trial is measured between two windows of the setting it would
   * replace (kept, trial, kept again) and kept only if it beat both by the least gain: a rate that
   * drifts on its own (the JVM warming up, another process starting) then favours neither.
   */
  private boolean decide(double rate, double waitShare) {
    int wasReaders = readers;
    int wasAhead = ahead;
    switch (step) {
      case BASE -> {
        keptRate = rate;
        return next(waitShare) || readers != wasReaders || ahead != wasAhead;
      }
      case TRIAL -> {
        trialRate = rate;
        trialWait = waitShare;
        readers = keptReaders;
        ahead = keptAhead;
        step = Step.RECHECK;
        restartWindow();
        return true;
      }
      default -> {
        double gain = 1 + Settings.Autotune.MIN_GAIN_PERCENT / 100.0;
        if (trialRate >= gain * Math.max(keptRate, rate)) {
          readers = trialReaders;
          ahead = trialAhead;
          keptRate = trialRate;
          if (readers == 0) {
            // The consumer alone writes faster than with a reader beside it: nothing else to tune.
            phase = Phase.DONE;
            return true;
          }
          next(trialWait);
          return true;
        }
        keptRate = rate;
        phase = phase == Phase.NONE ? Phase.READERS : phase == Phase.READERS ? Phase.AHEAD : Phase.DONE;
        return next(waitShare);
      }
    }
  }

  /**
   * Starts the next trial from the kept setting, whose last window the consumer spent {@code
   * waitShare} of getting batches; true if it changed the setting.
   */
  private boolean next(double waitShare) {
    keptReaders = readers;
    keptAhead = ahead;
    if (phase == Phase.DONE || waitShare < IDLE_WAIT_SHARE) {
      phase = Phase.DONE;
      return false;
    }
    if (phase == Phase.READERS && readers >= mostReaders) {
      phase = Phase.AHEAD;
    }
    if (phase == Phase.NONE) {
      // Copies from memory: the consumer alone may beat a reader beside it (a loaded machine, a
      // copy bound by memory bandwidth), so that is tried first.
      trialReaders = 0;
      trialAhead = ahead;
    } else if (phase == Phase.READERS) {
      trialReaders = readers + 1;
      // The ring rule's default follows the readers: one batch ahead more than they are.
      trialAhead = Math.min(Math.max(ahead, trialReaders + 1), mostAhead);
    } else if (ahead < mostAhead) {
      trialReaders = readers;
      trialAhead = Math.min(2 * ahead, mostAhead);
    } else {
      phase = Phase.DONE;
      return false;
    }
    readers = trialReaders;
    ahead = trialAhead;
    step = Step.TRIAL;
    trials++;
    restartWindow();
    return true;
  }

  private void restartWindow() {
    windowBatches = 0;
    windowStart = 1;
    settle = ahead + 1;
  }

  /** What was chosen so far, for the stats. */
  synchronized Tuning tuning() {
    return new Tuning(stage, readers, ahead, phase == Phase.DONE, trials, bufferBytes, budget.cpus(),
        budget.memoryBytes());
  }
}
