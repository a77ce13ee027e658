package dev.dht.operator.model;

/**
 * A spec the operator cannot turn into resources. The CRD schema rejects these already; this is the
 * second line for objects stored before a rule existed. The message says what to fix.
 */
public class InvalidSpecException extends RuntimeException {
    public InvalidSpecException(String message) {
        super(message);
    }
}
