package dev.dht.operator.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.dht.operator.api.v1alpha1.DhtCluster;
import dev.dht.operator.model.Member;
import dev.dht.operator.nodeadmin.HttpMemberAdmin;
import dev.dht.operator.nodeadmin.NodeCredentials;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** How often the cluster reconciler asks its members for their repair reports (a real HTTP member stand-in). */
class RepairPollsTest {
    static final NodeCredentials NONE = NodeCredentials.none();
    static final Duration BUSY = Duration.ofSeconds(2);
    static final String READY_REPORT = "{\"lastRound\":{\"at\":0,\"rangesOutOfSync\":0},\"oldestRangeRepair\":0,"
            + "\"totals\":{\"bytesRepaired\":0},\"rebuild\":{\"state\":\"ready\"}}";
    static final String REBUILDING_REPORT = "{\"lastRound\":{\"at\":0,\"rangesOutOfSync\":0},\"oldestRangeRepair\":0,"
            + "\"totals\":{\"bytesRepaired\":0},\"rebuild\":{\"state\":\"rebuilding\",\"rangesDone\":1856,"
            + "\"rangesTotal\":3072,\"bytesReceived\":0}}";

    HttpServer member;
    final AtomicInteger asked = new AtomicInteger();
    volatile int status = 503;
    volatile String body = READY_REPORT;
    /** One cluster of one ready member, the stand-in below. */
    final RepairPolls polls = new RepairPolls(new HttpMemberAdmin(), BUSY);

    final DhtCluster cluster = new DhtCluster();
    final List<Pod> pods = List.of(readyPod("c-0", "uid-1"));
    final Instant t0 = Instant.parse("2026-01-01T00:00:00Z");
    String url;

    @BeforeEach
    void start() throws Exception {
        member = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        member.createContext("/v0/admin/repair", exchange -> {
            asked.incrementAndGet();
            byte[] answer = (status == 200 ? body : "starting").getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(status, answer.length);
            exchange.getResponseBody().write(answer);
            exchange.close();
        });
        member.start();
        cluster.getMetadata().setName("c");
        cluster.getMetadata().setNamespace("ns");
        url = "http://127.0.0.1:" + member.getAddress().getPort();
    }

    @AfterEach
    void stop() {
        member.stop(0);
    }

    @Test
    void aMemberThatDidNotAnswerIsAskedAgainAtTheBusyIntervalNotTheSteadyOne() {

        var first = polls.reports(cluster, pods, i -> url, NONE, t0);
        assertThat(first.get(Member.of(0)).known()).as("a 503 is no report").isFalse();
        assertThat(asked).hasValue(1);

        // a replaced member's new pod that did not answer yet may be rebuilding: asked again after the busy interval
        status = 200;
        var second = polls.reports(cluster, pods, i -> url, NONE, t0.plus(BUSY).plusMillis(1));
        assertThat(asked).hasValue(2);
        assertThat(second.get(Member.of(0)).known()).isTrue();
        assertThat(second.get(Member.of(0)).rebuilding()).isFalse();

        // once it answered (and rebuilds nothing), the steady interval again
        polls.reports(
                cluster, pods, i -> url, NONE, t0.plus(BUSY.multipliedBy(2)).plusMillis(2));
        assertThat(asked).hasValue(2);
        polls.reports(
                cluster,
                pods,
                i -> url,
                NONE,
                t0.plus(BUSY).plus(polls.steadyInterval()).plusMillis(2));
        assertThat(asked).hasValue(3);
    }

    /**
     * A rebuilding member whose next poll gets no answer (a 503, a timeout under load) stays rebuilding, with its
     * last progress: it showed Up, and the cluster Ready, until the poll after (seen in an e2e run: step 10 saw Ready
     * 3/3 with the member Up, then Degraded and Rebuilding again).
     */
    @Test
    void aRebuildingMemberThatMissesAPollStaysRebuildingUntilItReportsOtherwise() {
        var schedule = new dev.dht.operator.model.RepairSchedule(true, Duration.ofHours(1), 1 << 20);

        status = 200;
        body = REBUILDING_REPORT;
        var rebuilding = polls.reports(cluster, pods, i -> url, NONE, t0);
        assertThat(rebuilding.get(Member.of(0)).rebuilding()).isTrue();

        status = 503; // the next poll: no answer
        var missed = polls.reports(cluster, pods, i -> url, NONE, t0.plus(BUSY).plusMillis(1));
        assertThat(asked).hasValue(2);
        assertThat(missed.get(Member.of(0)).known())
                .as("no answer is no report")
                .isFalse();
        var view = dev.dht.operator.repair.RepairView.of(missed, schedule, t0, t0.plus(BUSY));
        assertThat(view.rebuilding()).containsOnlyKeys(Member.of(0));
        assertThat(view.rebuilding().get(Member.of(0)).describe())
                .startsWith("1856/3072 ranges, 0 MiB received; waiting: a newer report (its last poll got none: ");

        var missedAgain = polls.reports(
                cluster, pods, i -> url, NONE, t0.plus(BUSY.multipliedBy(2)).plusMillis(2));
        assertThat(missedAgain.get(Member.of(0)).rebuilding())
                .as("still, a poll later")
                .isTrue();

        status = 200; // it answers: the rebuild ended
        body = READY_REPORT;
        var done = polls.reports(
                cluster, pods, i -> url, NONE, t0.plus(BUSY.multipliedBy(3)).plusMillis(3));
        assertThat(done.get(Member.of(0)).rebuilding()).isFalse();
        assertThat(dev.dht.operator.repair.RepairView.of(done, schedule, t0, t0.plus(BUSY.multipliedBy(3)))
                        .rebuilding())
                .isEmpty();
    }

    static Pod readyPod(String name, String uid) {
        return new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .withUid(uid)
                .endMetadata()
                .withNewStatus()
                .addNewCondition()
                .withType("Ready")
                .withStatus("True")
                .endCondition()
                .endStatus()
                .build();
    }
}
