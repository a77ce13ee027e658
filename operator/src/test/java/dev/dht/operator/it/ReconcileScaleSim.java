package dev.dht.operator.it;

import static dev.dht.operator.testing.FakeCluster.PLATFORM;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dht.operator.api.v1alpha1.MemberState;
import dev.dht.operator.api.v1alpha1.Phase;
import dev.dht.operator.model.Names;
import dev.dht.operator.testing.FakeCluster;
import dev.dht.operator.testing.FakeMembers;
import dev.dht.operator.testing.KubeApiServer;
import dev.dht.operator.testing.RequiresKubeApiServer;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The scale simulation's operator part (make bench-scale-sim; not part of make test: the name matches neither
 * surefire's nor failsafe's patterns, the bench target runs it with -Dit.test): the cluster reconciler against a
 * real kube-apiserver + etcd (kube-api-test) for DhtClusters of 100 and 1,000 members, with the fake StatefulSet
 * controller and fake members on one loopback server answering the admin API as nodes do. It measures, through a
 * client of the operator's own that counts every request: the time and API calls from an applied DhtCluster to
 * Ready, reconciles, writes and member polls; one more member (N to N + 1) to Ready; and a quiet minute after.
 * Figures go to the JSON named by -Ddht.scaleSim.out (the simulation's report reads it).
 */
@ExtendWith(RequiresKubeApiServer.class)
class ReconcileScaleSim {
    static final String NAME = "s";
    static final Duration BOUND = Duration.ofMinutes(6);
    static final Duration QUIET = Duration.ofSeconds(30);
    static final List<Map<String, Object>> RUNS = new ArrayList<>();

    /** Every request the operator's client makes, by verb. */
    static final Map<String, LongAdder> CALLS = new ConcurrentHashMap<>();

    static final AtomicLong LAST_CALL = new AtomicLong();

    /** The operator's own client (the extension closes it after each test): every request it makes is counted. */
    final KubernetesClient operatorClient = new KubernetesClientBuilder()
            .withConfig(Config.fromKubeconfig(KubeApiServer.kubeconfig()))
            .withHttpClientBuilderConsumer(b -> b.addOrReplaceInterceptor("count", new Interceptor() {
                @Override
                public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
                    String query = request.uri().getQuery();
                    String verb = query != null && query.contains("watch=true") ? "WATCH" : request.method();
                    CALLS.computeIfAbsent(verb, v -> new LongAdder()).increment();
                    LAST_CALL.set(System.nanoTime());
                }
            }))
            .build();

    @RegisterExtension
    final FakeCluster fake =
            FakeCluster.named(NAME, 0).operatorClient(operatorClient).build();

    final KubernetesClient client = fake.client;
    FakeMembers members;

    @AfterAll
    static void write() throws Exception {
        String out = System.getProperty("dht.scaleSim.out", "target/scale-sim-operator.json");
        Path path = Path.of(out);
        // runs of other sizes already in the file (an earlier invocation) stay; this one's replace theirs
        Map<Object, Map<String, Object>> bySize = new TreeMap<>();
        if (Files.exists(path)) {
            @SuppressWarnings("unchecked")
            Map<String, Object> old =
                    KubeApiServer.client().getKubernetesSerialization().unmarshal(Files.readString(path), Map.class);
            @SuppressWarnings("unchecked")
            List<Map<String, Object>> oldRuns = (List<Map<String, Object>>) old.getOrDefault("runs", List.of());
            oldRuns.forEach(r -> bySize.put(((Number) r.get("members")).intValue(), r));
        }
        RUNS.forEach(r -> bySize.put(r.get("members"), r));
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("runs", new ArrayList<>(bySize.values()));
        if (path.getParent() != null) {
            Files.createDirectories(path.getParent());
        }
        Files.writeString(
                path, KubeApiServer.client().getKubernetesSerialization().asJson(root) + "\n");
        System.err.println("[scale-sim] operator figures written to " + path.toAbsolutePath());
    }

    /** -Ddht.scaleSim.sizes=100,1000 (the default). */
    static java.util.stream.IntStream sizes() {
        return java.util.Arrays.stream(
                        System.getProperty("dht.scaleSim.sizes", "100,1000").split(","))
                .mapToInt(Integer::parseInt);
    }

    @ParameterizedTest
    @MethodSource("sizes")
    void aClusterOfNMembersBecomesReadyGrowsByOneAndStaysQuiet(int n) {
        members = fake.use(FakeMembers.onOneServer(client, fake.ns(), NAME, PLATFORM.clusterDomain(), n + 1)
                .movingPolls(2));
        Map<String, Object> run = new LinkedHashMap<>();
        run.put("members", n);

        Snapshot start = snapshot();
        fake.create(fake.cluster(n, s -> {}));
        long podsReady = awaitPodsReady(n, start.nanos());
        awaitReady(n);
        Snapshot ready = snapshot();
        Map<String, Object> create = ready.minus(start);
        run.put("readyMs", create.get("ms"));
        run.put("podsReadyMs", podsReady);
        run.put("reconciles", create.get("reconciles"));
        run.put("apiCalls", create.get("apiCalls"));
        run.put("create", create);
        run.put("statusBytes", (long) client.getKubernetesSerialization()
                .asJson(fake.current().getStatus())
                .length());
        run.put(
                "topologyBytes", (long) client
                        .configMaps()
                        .inNamespace(fake.ns())
                        .withName(Names.topologyConfigMap(NAME))
                        .get()
                        .getData()
                        .values()
                        .stream()
                        .mapToInt(String::length)
                        .sum());

        Snapshot before = snapshot();
        fake.edit(NAME, s -> s.replicas = n + 1);
        awaitReady(n + 1);
        Map<String, Object> grow = snapshot().minus(before);
        run.put("growMs", grow.get("ms"));
        run.put("grow", grow);

        awaitQuiet();
        Snapshot quietStart = snapshot();
        await().pollDelay(QUIET).atMost(QUIET.plusSeconds(5)).until(() -> true);
        Map<String, Object> quiet = snapshot().minus(quietStart);
        run.put("steadyApiCalls", quiet.get("apiCalls"));
        run.put("steadyReconciles", quiet.get("reconciles"));
        run.put("steadyMemberPolls", quiet.get("memberPolls"));
        run.put("steadyWindowSeconds", QUIET.toSeconds());
        RUNS.add(run);
        System.err.println("[scale-sim] operator " + run);
    }

    /** The reconciler makes no API call for 2 s (the last one of the grow has landed). */
    private void awaitQuiet() {
        await().atMost(BOUND)
                .pollInterval(Duration.ofMillis(200))
                .until(() -> System.nanoTime() - LAST_CALL.get()
                        > Duration.ofSeconds(2).toNanos());
    }

    /** Ms from start until the fake StatefulSet controller has all n pods ready (what the operator waits on). */
    private long awaitPodsReady(int n, long start) {
        await().atMost(BOUND)
                .pollInterval(Duration.ofSeconds(1))
                .until(() -> client.pods().inNamespace(fake.ns()).list().getItems().stream()
                                .filter(p -> p.getStatus() != null
                                        && p.getStatus().getConditions() != null
                                        && p.getStatus().getConditions().stream()
                                                .anyMatch(c ->
                                                        "Ready".equals(c.getType()) && "True".equals(c.getStatus())))
                                .count()
                        >= n);
        return (System.nanoTime() - start) / 1_000_000;
    }

    private void awaitReady(int n) {
        await().atMost(BOUND).pollInterval(Duration.ofMillis(250)).untilAsserted(() -> {
            var status = fake.current().getStatus();
            assertThat(status).isNotNull();
            assertThat(status.phase).isEqualTo(Phase.Ready);
            assertThat(status.members)
                    .hasSize(n)
                    .allSatisfy(m -> assertThat(m.state).isEqualTo(MemberState.Up));
        });
    }

    private record Snapshot(long nanos, Map<String, Long> calls, double reconciles, double writes, long memberPolls) {
        Map<String, Object> minus(Snapshot earlier) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("ms", (nanos - earlier.nanos) / 1_000_000); // whole numbers: the report reads it with the node's JSON
            m.put("reconciles", (long) (reconciles - earlier.reconciles));
            m.put("writes", (long) (writes - earlier.writes));
            long total = 0;
            Map<String, Object> byVerb = new TreeMap<>();
            for (var e : calls.entrySet()) {
                long d = e.getValue() - earlier.calls.getOrDefault(e.getKey(), 0L);
                byVerb.put(e.getKey(), d);
                total += d;
            }
            m.put("apiCalls", total);
            m.put("apiCallsByVerb", byVerb);
            m.put("memberPolls", memberPolls - earlier.memberPolls);
            return m;
        }
    }

    private Snapshot snapshot() {
        Map<String, Long> calls = new TreeMap<>();
        CALLS.forEach((k, v) -> calls.put(k, v.sum()));
        var writes = fake.writes;
        return new Snapshot(System.nanoTime(), calls, writes.reconciles(), writes.writes(), members.totalPolls());
    }
}
