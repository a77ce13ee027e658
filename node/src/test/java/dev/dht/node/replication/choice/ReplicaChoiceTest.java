package dev.dht.node.replication.choice;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Peer states, the order reads ask replicas in, probes and backup delays, on a clock the test moves. */
class ReplicaChoiceTest {
    private static final long MS = 1_000_000L;
    private static final Duration TIMEOUT = Duration.ofSeconds(1);

    /** n reads answered in {@code latency} each, from t on; returns the time after them. */
    private static long answerReads(PeerHealth p, int n, long latency, long t) {
        for (int i = 0; i < n; i++) {
            long sent = p.sent(t);
            t += latency;
            p.answered(sent, t, true, false);
        }
        return t;
    }

    @Test
    void theBackupDelayIsThePeersP99WithinFloorAndCeilingAndTheCeilingWhileUnknown() {
        ReplicaChoice choice = new ReplicaChoice(TIMEOUT);
        PeerHealth p = choice.peer("http://b");
        assertThat(p.backupDelayNanos())
                .as("no answers yet: a tenth of the timeout")
                .isEqualTo(100 * MS);
        long t = answerReads(p, 200, 10 * MS, 0);
        assertThat(p.backupDelayNanos()).isBetween(10 * MS, 12 * MS);
        PeerHealth fast = choice.peer("http://c");
        answerReads(fast, 200, MS / 10, t);
        assertThat(fast.backupDelayNanos()).as("floor").isEqualTo(ReplicaChoice.FLOOR_NANOS);
        PeerHealth slow = choice.peer("http://d");
        answerReads(slow, 200, 500 * MS, t);
        assertThat(slow.backupDelayNanos()).as("ceiling").isEqualTo(100 * MS);
    }

    @Test
    void aPeerThatOwesAnswersAndGivesNoneTurnsSlowThenAvoidedAndItsFirstAnswerBringsItBack() {
        ReplicaChoice choice = new ReplicaChoice(TIMEOUT);
        PeerHealth p = choice.peer("http://b");
        long t = answerReads(p, 100, MS, 0);
        long delay = p.backupDelayNanos();
        assertThat(p.state(t)).isEqualTo(PeerState.RESPONSIVE);
        long sent = p.sent(t); // it stops answering here
        assertThat(p.state(t + delay - 1)).isEqualTo(PeerState.RESPONSIVE);
        assertThat(p.state(t + delay))
                .as("owes an answer for longer than its p99")
                .isEqualTo(PeerState.SLOW);
        long avoidAfter = choice.avoidAfterNanos(delay);
        assertThat(avoidAfter).isEqualTo(ReplicaChoice.AVOID_MIN_NANOS);
        assertThat(p.state(t + avoidAfter)).isEqualTo(PeerState.AVOIDED);
        p.failed(t + 1000 * MS); // its call times out: still silent
        assertThat(p.state(t + 1500 * MS)).isEqualTo(PeerState.AVOIDED);
        long late = p.sent(t + 1600 * MS);
        p.answered(late, t + 1601 * MS, true, false);
        assertThat(p.state(t + 1601 * MS)).isEqualTo(PeerState.RESPONSIVE);
        assertThat(sent).isEqualTo(t);
    }

    @Test
    void aPeerWithNothingOutstandingIsNotSilentHoweverLongSinceItsLastAnswer() {
        ReplicaChoice choice = new ReplicaChoice(TIMEOUT);
        PeerHealth p = choice.peer("http://b");
        long t = answerReads(p, 100, MS, 0);
        assertThat(p.state(t + 3_600_000 * MS)).isEqualTo(PeerState.RESPONSIVE);
    }

    @Test
    void failuresInARowAvoidAPeerAndOneGoodAnswerEndsIt() {
        ReplicaChoice choice = new ReplicaChoice(TIMEOUT);
        PeerHealth p = choice.peer("http://b");
        long t = answerReads(p, 100, MS, 0);
        for (int i = 0; i < PeerHealth.FAILURES_TO_AVOID - 1; i++) {
            p.sent(t);
            p.failed(t); // refused at once
        }
        assertThat(p.state(t)).isEqualTo(PeerState.RESPONSIVE);
        long s = p.sent(t);
        p.answered(s, t, false, true); // 503: answered, but refused
        assertThat(p.state(t)).as("three failures in a row").isEqualTo(PeerState.AVOIDED);
        s = p.sent(t + MS);
        p.answered(s, t + 2 * MS, false, false);
        assertThat(p.state(t + 2 * MS)).isEqualTo(PeerState.RESPONSIVE);
    }

    @Test
    void theBacklogAResumedPeerAnswersIsNoLatencySample() {
        ReplicaChoice choice = new ReplicaChoice(TIMEOUT);
        PeerHealth p = choice.peer("http://b");
        long t = answerReads(p, 200, MS, 0);
        List<Long> backlog = new ArrayList<>();
        for (int i = 0; i < 300; i++) { // reads and writes sent while it is paused
            backlog.add(p.sent(t + i * MS));
        }
        long resume = t + 900 * MS;
        assertThat(p.state(resume)).isEqualTo(PeerState.AVOIDED);
        for (long sent : backlog) {
            p.answered(sent, resume, true, false);
        }
        assertThat(p.state(resume)).isEqualTo(PeerState.RESPONSIVE);
        assertThat(p.p99Nanos())
                .as("the p99 still describes the peer, not its pause")
                .isLessThan(2 * MS);
        answerReads(p, 50, MS, resume);
        assertThat(p.backupDelayNanos()).isEqualTo(ReplicaChoice.FLOOR_NANOS);
    }

    @Test
    void aPeerWhoseMedianIsFarAboveTheFastestIsSlowUntilItComesBackClose() {
        ReplicaChoice choice = new ReplicaChoice(TIMEOUT);
        PeerHealth fast = choice.peer("http://b");
        PeerHealth slow = choice.peer("http://c");
        long t = answerReads(fast, 100, MS, 0);
        t = answerReads(slow, 100, 20 * MS, t);
        t = answerReads(fast, 20, MS, t + 100 * MS); // refreshes the fastest median
        assertThat(fast.state(t)).isEqualTo(PeerState.RESPONSIVE);
        assertThat(slow.state(t)).as("median 20 ms against 1 ms").isEqualTo(PeerState.SLOW);
        // it speeds up to 5 ms: under 4x + 2 ms, but above 2x + 2 ms: still slow (no flapping on noise)
        t += 3 * LatencyEstimate.HALF_LIFE_NANOS;
        for (int s = 0; s < 12; s++) {
            t = answerReads(slow, 100, 5 * MS, t + LatencyEstimate.HALF_LIFE_NANOS);
            t = answerReads(fast, 100, MS, t);
        }
        assertThat(slow.state(t)).isEqualTo(PeerState.SLOW);
        for (int s = 0; s < 12; s++) {
            t = answerReads(slow, 100, 3 * MS / 2, t + LatencyEstimate.HALF_LIFE_NANOS);
            t = answerReads(fast, 100, MS, t);
        }
        assertThat(slow.state(t)).isEqualTo(PeerState.RESPONSIVE);
    }

    @Test
    void preferKeepsTheKeysOrderWithinAStateAndPutsSlowThenAvoidedLast() {
        int[] order = {0, 3, 1, 4, 2};
        // slot: 0 self, 1 avoided, 2 responsive, 3 slow, 4 responsive
        int[] rank = {0, 2, 0, 1, 0};
        ReplicaChoice.stableSortByRank(order, 1, rank);
        assertThat(order).containsExactly(0, 4, 2, 3, 1);
        int[] same = {2, 0, 1};
        ReplicaChoice.stableSortByRank(same, 0, new int[3]);
        assertThat(same).containsExactly(2, 0, 1);
    }

    @Test
    void preferOnLivePeersAndTheOwnSlotStaysFirst() {
        ReplicaChoice choice = new ReplicaChoice(TIMEOUT);
        String[] urls = {"http://self", "http://b", "http://c"};
        long t = answerReads(choice.peer(urls[1]), 100, MS, 0);
        t = answerReads(choice.peer(urls[2]), 100, MS, t);
        int[] order = {0, 1, 2};
        choice.prefer(urls, order, 1, t);
        assertThat(order).containsExactly(0, 1, 2);
        choice.peer(urls[1]).sent(t); // b goes silent
        choice.prefer(urls, order, 1, t + 60 * MS);
        assertThat(order).containsExactly(0, 2, 1);
    }

    @Test
    void anAvoidedPeerGetsOneProbeAtATimeAtMostOnePerInterval() {
        ReplicaChoice choice = new ReplicaChoice(TIMEOUT);
        String[] urls = {"http://self", "http://b", "http://c"};
        PeerHealth b = choice.peer(urls[1]);
        long t = answerReads(b, 100, MS, 0);
        t = answerReads(choice.peer(urls[2]), 100, MS, t);
        int[] order = {0, 2, 1};
        assertThat(choice.probe(urls, order, 2, t))
                .as("b is responsive: no probe")
                .isEqualTo(-1);
        b.sent(t);
        t += 60 * MS; // b avoided
        assertThat(choice.probe(urls, order, 2, t)).isEqualTo(1);
        assertThat(choice.probe(urls, order, 2, t + 200 * MS))
                .as("one in flight")
                .isEqualTo(-1);
        b.probeDone();
        assertThat(choice.probe(urls, order, 2, t + 50 * MS)).as("interval").isEqualTo(-1);
        assertThat(choice.probe(urls, order, 2, t + 100 * MS)).isEqualTo(1);
        assertThat(b.probes()).isEqualTo(2);
        int[] five = {0, 1, 2, 3, 4};
        String[] urls5 = {"http://self", "http://x", "http://y", "http://b", "http://z"};
        ReplicaChoice c5 = new ReplicaChoice(TIMEOUT);
        c5.peer("http://b").sent(0); // no answers seen: its backup delay is the ceiling, so it is avoided later
        assertThat(c5.probe(urls5, five, 2, 399 * MS)).isEqualTo(-1);
        assertThat(c5.probe(urls5, five, 2, 400 * MS)).isEqualTo(3);
        assertThat(five)
                .as("the probed slot moves to the first unasked position")
                .containsExactly(0, 1, 3, 2, 4);
    }

    /**
     * The whole loop on a simulated clock: one coordinator reads a key every millisecond at 2/3 (its own copy and
     * one of b and c, by key) and writes one to both; each peer answers in 1 ms. c stops answering for a second
     * (its calls time out after 1 s), then answers everything at once and goes on as before.
     */
    @Test
    void aPausedReplicaIsLeftWithinAFewReadsProbedMeanwhileAndUsedAgainOnceItAnswers() {
        ReplicaChoice choice = new ReplicaChoice(TIMEOUT);
        String[] urls = {"http://self", "http://b", "http://c"};
        long pause = 2000 * MS;
        long resume = 3000 * MS;
        List<long[]> pending = new ArrayList<>(); // {peer slot, sent, answer time or -1, read 1/0, probe 1/0}
        int readsOfCDuringPause = 0;
        int readsOfCBeforePause = 0;
        int readsOfCAfterResume = 0;
        int probes = 0;
        for (long t = 0; t < 5000 * MS; t += MS) {
            // deliver what is due
            for (Iterator<long[]> it = pending.iterator(); it.hasNext(); ) {
                long[] call = it.next();
                PeerHealth p = choice.peer(urls[(int) call[0]]);
                boolean paused = call[0] == 2 && t >= pause && t < resume;
                if (!paused && call[2] <= t) {
                    p.answered(call[1], t, call[3] == 1, false);
                } else if (t - call[1] >= 1000 * MS) {
                    p.failed(t);
                } else {
                    continue;
                }
                if (call[4] == 1) {
                    p.probeDone();
                }
                it.remove();
            }
            // one read: its own copy and the first of the others in the key's order, as preferred
            int[] order = (t / MS) % 2 == 0 ? new int[] {0, 1, 2} : new int[] {0, 2, 1};
            choice.prefer(urls, order, 1, t);
            int probe = choice.probe(urls, order, 2, t);
            for (int i = 1; i < (probe >= 0 ? 3 : 2); i++) {
                int slot = order[i];
                pending.add(new long[] {slot, choice.peer(urls[slot]).sent(t), t + MS, 1, slot == probe ? 1 : 0});
            }
            if (probe >= 0 && t >= pause && t < resume) {
                probes++;
            }
            if (order[1] == 2) {
                if (t < pause) {
                    readsOfCBeforePause++;
                } else if (t < resume) {
                    readsOfCDuringPause++;
                } else if (t >= resume + 100 * MS) {
                    readsOfCAfterResume++;
                }
            }
            for (int slot = 1; slot <= 2; slot++) { // one write to both
                pending.add(new long[] {slot, choice.peer(urls[slot]).sent(t), t + MS, 0, 0});
            }
            if (t == resume - MS) {
                assertThat(choice.peer(urls[2]).state(t)).isEqualTo(PeerState.AVOIDED);
            }
        }
        assertThat(readsOfCBeforePause).as("c takes its share of reads by key").isBetween(900, 1100);
        assertThat(readsOfCDuringPause)
                .as("reads that waited for the paused replica")
                .isLessThanOrEqualTo(5);
        assertThat(probes)
                .as("probes: one in flight, each hanging until its 1 s timeout")
                .isBetween(1, 3);
        assertThat(readsOfCAfterResume).as("c takes its share again").isBetween(850, 1050);
        assertThat(choice.peer(urls[2]).backupDelayNanos())
                .as("its backlog is not its latency")
                .isEqualTo(ReplicaChoice.FLOOR_NANOS);
    }
}
