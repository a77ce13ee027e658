package dev.dht.node.cluster;

import java.time.Duration;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;

/** The bound: a request whose {@code ack} cannot be met (a replica is down) answers 504 within 2 s. */
final class GatewayTimeout {
    static final Duration BOUND = Duration.ofSeconds(2);

    private GatewayTimeout() {
    }

    static void assertAnsweredWithinBound(String request, Supplier<Reply> call) {
        long start = System.nanoTime();
        Reply reply = call.get();
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertThat(reply).as(request).isEqualTo(Reply.GATEWAY_TIMEOUT);
        assertThat(took).as("time to answer " + request).isLessThan(BOUND);
    }
}
