package dev.dht.node.sorting;

/** Which of two values of one key is kept when a sort meets the key more than once. */
@FunctionalInterface
public interface Resolver {
    /** Whether value a beats value b (b is kept when neither beats the other). */
    boolean beats(byte[] a, int aOffset, int aLength, byte[] b, int bOffset, int bLength);
}
