package dev.dht.operator.backup;

import java.time.DayOfWeek;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.BitSet;
import java.util.Optional;

/**
 * A cron schedule in UTC: five fields (minute hour day-of-month month day-of-week) with {@code *}, lists, ranges
 * and steps, or one of @hourly, @daily (@midnight), @weekly, @monthly, @yearly (@annually). As in Vixie cron, when
 * both day fields are restricted a day matches either. Pure.
 */
public final class Cron {
    private final String text;
    private final BitSet minutes;
    private final BitSet hours;
    private final BitSet days;
    private final BitSet months;
    private final BitSet weekdays;
    private final boolean anyDay;
    private final boolean anyWeekday;

    private Cron(
            String text,
            BitSet minutes,
            BitSet hours,
            BitSet days,
            BitSet months,
            BitSet weekdays,
            boolean anyDay,
            boolean anyWeekday) {
        this.text = text;
        this.minutes = minutes;
        this.hours = hours;
        this.days = days;
        this.months = months;
        this.weekdays = weekdays;
        this.anyDay = anyDay;
        this.anyWeekday = anyWeekday;
    }

    /** @throws IllegalArgumentException with what is wrong */
    public static Cron parse(String text) {
        String t = text == null ? "" : text.trim();
        String expanded = switch (t) {
            case "@hourly" -> "0 * * * *";
            case "@daily", "@midnight" -> "0 0 * * *";
            case "@weekly" -> "0 0 * * 0";
            case "@monthly" -> "0 0 1 * *";
            case "@yearly", "@annually" -> "0 0 1 1 *";
            default -> t;
        };
        String[] f = expanded.split("\\s+");
        if (f.length != 5) {
            throw new IllegalArgumentException(
                    "schedule '" + text + "' must have 5 fields (minute hour day-of-month month"
                            + " day-of-week) or be @hourly, @daily, @weekly, @monthly or @yearly");
        }
        BitSet weekdays = field(f[4], 0, 7, "day-of-week");
        if (weekdays.get(7)) {
            weekdays.set(0); // 7 is Sunday too
        }
        return new Cron(
                t,
                field(f[0], 0, 59, "minute"),
                field(f[1], 0, 23, "hour"),
                field(f[2], 1, 31, "day-of-month"),
                field(f[3], 1, 12, "month"),
                weekdays,
                f[2].equals("*"),
                f[4].equals("*"));
    }

    private static BitSet field(String spec, int min, int max, String name) {
        BitSet out = new BitSet();
        for (String part : spec.split(",")) {
            String range = part;
            int step = 1;
            int slash = part.indexOf('/');
            if (slash >= 0) {
                step = number(part.substring(slash + 1), 1, max, name);
                range = part.substring(0, slash);
            }
            int from;
            int to;
            if (range.equals("*")) {
                from = min;
                to = max;
            } else if (range.contains("-")) {
                String[] ends = range.split("-", 2);
                from = number(ends[0], min, max, name);
                to = number(ends[1], min, max, name);
                if (to < from) {
                    throw new IllegalArgumentException(name + " range '" + range + "' runs backwards");
                }
            } else {
                from = number(range, min, max, name);
                to = slash >= 0 ? max : from;
            }
            for (int v = from; v <= to; v += step) {
                out.set(v);
            }
        }
        return out;
    }

    private static int number(String s, int min, int max, String name) {
        try {
            int v = Integer.parseInt(s);
            if (v < min || v > max) {
                throw new IllegalArgumentException(name + " " + v + " is outside " + min + "-" + max);
            }
            return v;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " '" + s + "' is not a number, a range, a list or *");
        }
    }

    boolean matches(ZonedDateTime t) {
        if (!minutes.get(t.getMinute()) || !hours.get(t.getHour()) || !months.get(t.getMonthValue())) {
            return false;
        }
        boolean day = days.get(t.getDayOfMonth());
        boolean weekday = weekdays.get(
                t.getDayOfWeek() == DayOfWeek.SUNDAY ? 0 : t.getDayOfWeek().getValue());
        if (anyDay || anyWeekday) {
            return day && weekday;
        }
        return day || weekday;
    }

    /** The latest scheduled minute at or before {@code at} (within the last 366 days). */
    public Optional<Instant> latestAtOrBefore(Instant at) {
        ZonedDateTime t = at.atZone(ZoneOffset.UTC).truncatedTo(ChronoUnit.MINUTES);
        for (int i = 0; i < 366 * 24 * 60; i++, t = t.minusMinutes(1)) {
            if (matches(t)) {
                return Optional.of(t.toInstant());
            }
        }
        return Optional.empty();
    }

    /** The first scheduled minute after {@code at} (within the next 366 days). */
    public Optional<Instant> nextAfter(Instant at) {
        ZonedDateTime t =
                at.atZone(ZoneOffset.UTC).truncatedTo(ChronoUnit.MINUTES).plusMinutes(1);
        for (int i = 0; i < 366 * 24 * 60; i++, t = t.plusMinutes(1)) {
            if (matches(t)) {
                return Optional.of(t.toInstant());
            }
        }
        return Optional.empty();
    }

    @Override
    public String toString() {
        return text;
    }
}
