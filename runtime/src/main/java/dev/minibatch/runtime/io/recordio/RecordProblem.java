package dev.minibatch.runtime.io.recordio;

/**
 * A corrupt stretch of a RecordIO file that a reader skipped because it was asked to ({@link
 * RecordIOFile.Builder#skipCorrupt(boolean)}), as dmlc's splitter does when it resynchronises at
 * the next magic word.
 *
 * @param file the file
 * @param record the index the next good record has (the records kept before it are numbered
 *     {@code 0 .. record - 1})
 * @param offset the byte offset where the problem was found
 * @param skippedBytes the bytes skipped before the next good record (or the end of the file)
 * @param message what was expected and what was found
 */
public record RecordProblem(String file, int record, long offset, long skippedBytes, String message) {
  @Override
  public String toString() {
    return file + ": at offset " + offset + " (before record " + record + "): " + message + "; skipped "
        + skippedBytes + " bytes";
  }
}
