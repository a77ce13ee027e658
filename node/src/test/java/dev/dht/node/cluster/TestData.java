package dev.dht.node.cluster;

import java.util.concurrent.ThreadLocalRandom;

/** Fresh ids and values, as the course's tests make them: every scenario writes keys no other one touched. */
final class TestData {
    private TestData() {}

    static String randomId() {
        return Long.toHexString(ThreadLocalRandom.current().nextLong());
    }

    static byte[] randomValue() {
        byte[] value = new byte[1024];
        ThreadLocalRandom.current().nextBytes(value);
        return value;
    }
}
