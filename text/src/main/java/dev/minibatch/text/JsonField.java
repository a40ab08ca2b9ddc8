package dev.minibatch.text;

import dev.minibatch.runtime.io.FileFormatException;
import java.io.IOException;
import java.nio.file.Path;
import org.nd4j.shade.jackson.core.JsonFactory;
import org.nd4j.shade.jackson.core.JsonParser;
import org.nd4j.shade.jackson.core.JsonProcessingException;
import org.nd4j.shade.jackson.core.JsonToken;

/**
 * The string member {@code field} of a line holding one JSON object. Parsed as a stream of tokens:
 * the other members are skipped without being built, and only the one member's text is made a String.
 */
final class JsonField {
  private static final JsonFactory JSON = new JsonFactory();

  private final Path file;
  private final String field;

  JsonField(Path file, String field) {
    this.file = file;
    this.field = field;
  }

  /** The member's text, for {@link TextLines.LineText}. */
  String text(String line, long number) {
    String expected = "expected a JSON object with a string member '" + field + "'";
    try (JsonParser p = JSON.createParser(line)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw fail(number, (line.isBlank() ? "a blank line" : "not a JSON object") + ", " + expected);
      }
      String found = null;
      JsonToken t;
      while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
        String name = p.getCurrentName();
        JsonToken value = p.nextToken();
        if (name.equals(field)) {
          if (value != JsonToken.VALUE_STRING) {
            throw fail(number, "member '" + field + "' is " + kind(value) + ", expected a string");
          }
          found = p.getText();
        } else {
          p.skipChildren();
        }
      }
      if (t != JsonToken.END_OBJECT) {
        throw fail(number, "malformed JSON object, " + expected);
      }
      if (p.nextToken() != null) {
        throw fail(number, "more after the JSON object, " + expected + " and nothing else");
      }
      if (found == null) {
        throw fail(number, "no member '" + field + "', " + expected);
      }
      return found;
    } catch (JsonProcessingException e) {
      throw fail(number, "malformed JSON at column " + e.getLocation().getColumnNr() + " (" + e.getOriginalMessage()
          + "), " + expected);
    } catch (IOException e) {
      // Parsing a String reads no file; Jackson declares it for its other sources.
      throw fail(number, "unreadable JSON (" + e.getMessage() + "), " + expected);
    }
  }

  private FileFormatException fail(long number, String message) {
    return new FileFormatException(file, "line " + number + ": " + message);
  }

  private static String kind(JsonToken t) {
    switch (t) {
      case START_OBJECT:
        return "an object";
      case START_ARRAY:
        return "an array";
      case VALUE_NUMBER_INT:
      case VALUE_NUMBER_FLOAT:
        return "a number";
      case VALUE_TRUE:
      case VALUE_FALSE:
        return "a boolean";
      case VALUE_NULL:
        return "null";
      default:
        return String.valueOf(t);
    }
  }
}
