package dev.dht.operator.backup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class CronTest {
    static Instant at(String t) {
        return Instant.parse(t);
    }

    @Test
    void findsTheLatestAndNextScheduledMinute() {
        var daily3 = Cron.parse("0 3 * * *");
        assertThat(daily3.latestAtOrBefore(at("2026-01-10T02:59:59Z"))).contains(at("2026-01-09T03:00:00Z"));
        assertThat(daily3.latestAtOrBefore(at("2026-01-10T03:00:00Z"))).contains(at("2026-01-10T03:00:00Z"));
        assertThat(daily3.nextAfter(at("2026-01-10T03:00:00Z"))).contains(at("2026-01-11T03:00:00Z"));
        var every15 = Cron.parse("*/15 * * * *");
        assertThat(every15.nextAfter(at("2026-01-10T10:07:00Z"))).contains(at("2026-01-10T10:15:00Z"));
        assertThat(Cron.parse("@hourly").nextAfter(at("2026-01-10T10:07:00Z"))).contains(at("2026-01-10T11:00:00Z"));
    }

    @Test
    void weekdaysRangesListsAndSundayAsSeven() {
        var weekdays = Cron.parse("30 1 * * 1-5");
        // 2026-01-10 is a Saturday: the next run is Monday the 12th
        assertThat(weekdays.nextAfter(at("2026-01-10T00:00:00Z"))).contains(at("2026-01-12T01:30:00Z"));
        assertThat(Cron.parse("0 0 * * 7").nextAfter(at("2026-01-10T00:00:00Z")))
                .contains(at("2026-01-11T00:00:00Z"));
        assertThat(Cron.parse("0 6,18 * * *").nextAfter(at("2026-01-10T07:00:00Z")))
                .contains(at("2026-01-10T18:00:00Z"));
        // both day fields restricted: either matches (the 15th, or any Monday)
        assertThat(Cron.parse("0 0 15 * 1").nextAfter(at("2026-01-13T00:00:00Z")))
                .contains(at("2026-01-15T00:00:00Z"));
    }

    @Test
    void refusesWhatIsNotCronWithTheReason() {
        assertThatThrownBy(() -> Cron.parse("0 3 * *")).hasMessageContaining("5 fields");
        assertThatThrownBy(() -> Cron.parse("61 * * * *")).hasMessageContaining("minute 61 is outside 0-59");
        assertThatThrownBy(() -> Cron.parse("0 3 * * mon")).hasMessageContaining("day-of-week 'mon'");
        assertThatThrownBy(() -> Cron.parse("0 5-3 * * *")).hasMessageContaining("runs backwards");
    }
}
