package dev.dht.node.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class UnitsTest {

    @ParameterizedTest
    @CsvSource({
        "4096, 4096",
        "0, 0",
        "10B, 10",
        "64k, 65536",
        "64K, 65536",
        "64KiB, 65536",
        "64kB, 65536",
        "16MiB, 16777216",
        "256Mi, 268435456",
        "64m, 67108864",
        "1g, 1073741824",
        "1Gi, 1073741824",
        "2TiB, 2199023255552"
    })
    void sizesAreBinaryWhateverTheSpelling(String text, long bytes) {
        assertThat(Units.parseSize(text)).isEqualTo(bytes);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "abc", "-1", "1.5m", "10x", "k", "99999999999999999999", "9999999999999t"})
    void badSizesAreRejectedWithTheirText(String text) {
        assertThatThrownBy(() -> Units.parseSize(text)).isInstanceOf(IllegalArgumentException.class);
    }

    @ParameterizedTest
    @CsvSource({"500ms, 500", "1s, 1000", "2m, 120000", "1h, 3600000", "1d, 86400000", "0s, 0"})
    void durations(String text, long millis) {
        assertThat(Units.parseDuration(text)).isEqualTo(Duration.ofMillis(millis));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "1", "1.5s", "s", "1w", "-1s", "10 sec"})
    void badDurationsAreRejected(String text) {
        assertThatThrownBy(() -> Units.parseDuration(text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a duration");
    }

    @Test
    void formatsRoundTrip() {
        assertThat(Units.formatSize(16L << 20)).isEqualTo("16MiB");
        assertThat(Units.formatSize(1000)).isEqualTo("1000");
        assertThat(Units.formatDuration(Duration.ofSeconds(90))).isEqualTo("90s");
        assertThat(Units.formatDuration(Duration.ofDays(1))).isEqualTo("1d");
        assertThat(Units.formatDuration(Duration.ofMillis(1500))).isEqualTo("1500ms");
    }
}
