package dev.dht.operator.reconciler;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * What a cluster's ready members last answered to one question, asked again at a steady pace or at once when the
 * pods changed: the answers move slowly, and a reconcile should not wait on the members each time an event comes.
 */
final class PacedPolls<T> {
    private record Last<T>(Instant at, String pods, T answers) {}

    private final Duration every;
    private final Map<String, Last<T>> last = new ConcurrentHashMap<>();

    PacedPolls(Duration every) {
        this.every = every;
    }

    /** The last answers of these members if fresh, else {@code ask}'s. */
    T answers(RepairPolls.ReadyMembers members, Instant now, Function<RepairPolls.ReadyMembers, T> ask) {
        Last<T> l = last.get(members.cluster());
        if (l != null && l.pods().equals(members.podKey()) && l.at().plus(every).isAfter(now)) {
            return l.answers();
        }
        T answers = ask.apply(members);
        last.put(members.cluster(), new Last<>(now, members.podKey(), answers));
        return answers;
    }

    /** The next {@link #answers} asks again (the members' state was just changed). */
    void forget(String cluster) {
        last.remove(cluster);
    }
}
