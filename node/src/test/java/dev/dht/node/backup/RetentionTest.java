package dev.dht.node.backup;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RetentionTest {
    static final long HOUR = 3_600_000L;
    static final long NOW = 100 * HOUR;

    @Test
    void keepsTheNewestCompleteOnesAndDeletesIncompleteOnesNotRunning() {
        Map<String, Long> complete = Map.of(
                "a", NOW - 5 * HOUR, "b", NOW - 4 * HOUR, "c", NOW - 3 * HOUR, "d", NOW - 2 * HOUR, "e", NOW - HOUR);
        assertThat(Retention.toDelete(complete, Set.of("broken", "running"), Set.of("running"), 3, null, NOW))
                .containsExactlyInAnyOrder("a", "b", "broken");
    }

    @Test
    void deletesTooOldOnesButNeverTheNewest() {
        Map<String, Long> complete = Map.of("old", NOW - 50 * HOUR, "older", NOW - 60 * HOUR);
        assertThat(Retention.toDelete(complete, Set.of(), Set.of(), 10, Duration.ofHours(24), NOW))
                .containsExactly("older");
        assertThat(Retention.toDelete(Map.of("only", NOW - 99 * HOUR), Set.of(), Set.of(), 1, Duration.ofHours(1), NOW))
                .isEmpty();
    }

    @Test
    void protectedOnesStayWhateverTheirRank() {
        Map<String, Long> complete = Map.of("a", NOW - 3 * HOUR, "b", NOW - 2 * HOUR, "c", NOW - HOUR);
        assertThat(Retention.toDelete(complete, Set.of(), Set.of("a"), 1, null, NOW))
                .containsExactly("b");
    }
}
