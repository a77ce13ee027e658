package dev.dht.operator.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.dht.operator.api.v1alpha1.DhtCluster;
import dev.dht.operator.api.v1alpha1.DhtClusterSpec;
import dev.dht.operator.api.v1alpha1.DhtClusterStatus;
import dev.dht.operator.api.v1alpha1.Phase;
import dev.dht.operator.model.Names;
import dev.dht.operator.model.Platform;
import dev.dht.operator.model.Topology;
import dev.dht.operator.nodeadmin.MemberAddresses;
import dev.dht.operator.reconciler.WriteMetrics;
import dev.dht.operator.status.Conditions;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.junit.LocallyRunOperatorExtension;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The fake-cluster set-up the operator's integration tests share, as one JUnit extension (register it on an
 * instance field): the operator under test in a namespace of its own per test ({@link OperatorUnderTest}) with the
 * cluster reconciler reaching fake members, the {@link FakeStatefulSetController}, and {@link FakeMembers} per
 * cluster name, started after the operator's namespace exists and closed before the operator stops. The accessors
 * read and await the DhtCluster the test named.
 */
public final class FakeCluster implements BeforeEachCallback, AfterEachCallback {
    public static final Platform PLATFORM = new Platform("dht-node:it", "cluster.local");
    public static final Duration FUNCTIONAL_BOUND = Duration.ofSeconds(90);

    private final String name;
    private final int capacity;
    /** The test's client (the operator's own may differ: {@link Builder#operatorClient}). */
    public final KubernetesClient client = KubeApiServer.client();
    /** The reconcilers' write metrics (reconciles, writes). */
    public final WriteMetrics writes = WriteMetrics.inMemory();

    private final Map<String, FakeMembers> members = new ConcurrentHashMap<>();
    private final LocallyRunOperatorExtension operator;
    private volatile String ns;
    private FakeStatefulSetController statefulSets;

    private FakeCluster(Builder b) {
        this.name = b.name;
        this.capacity = b.capacity;
        MemberAddresses addresses = (namespace, pod, url) -> members.values().stream()
                .map(m -> m.adminUrl(namespace, pod, url))
                .filter(u -> !u.equals(url))
                .findFirst()
                .orElse(url);
        var operatorBuilder = OperatorUnderTest.builder(b.operatorClient == null ? client : b.operatorClient)
                .withReconciler(OperatorUnderTest.clusterReconciler(PLATFORM, writes, addresses));
        b.more.apply(writes, addresses).forEach(operatorBuilder::withReconciler);
        this.operator = operatorBuilder.build();
    }

    /** A fixture for the DhtCluster {@code name}, whose fake members (room for {@code capacity}) exist at start. */
    public static Builder named(String name, int capacity) {
        return new Builder(name, capacity);
    }

    /** A fixture for tests that name their clusters themselves and make their fake members with {@link #members}. */
    public static Builder several() {
        return new Builder(null, 0);
    }

    public static final class Builder {
        private final String name;
        private final int capacity;
        private KubernetesClient operatorClient;
        private BiFunction<WriteMetrics, MemberAddresses, List<Reconciler<?>>> more = (w, a) -> List.of();

        private Builder(String name, int capacity) {
            this.name = name;
            this.capacity = capacity;
        }

        /** The operator's own client (say, one that counts its requests); the test's client stays separate. */
        public Builder operatorClient(KubernetesClient client) {
            this.operatorClient = client;
            return this;
        }

        /** Reconcilers beside the cluster reconciler, sharing its write metrics and its fake members' addresses. */
        public Builder reconcilers(BiFunction<WriteMetrics, MemberAddresses, List<Reconciler<?>>> more) {
            this.more = more;
            return this;
        }

        public FakeCluster build() {
            return new FakeCluster(this);
        }
    }

    @Override
    public void beforeEach(ExtensionContext context) throws Exception {
        operator.beforeEach(context);
        ns = operator.getNamespace();
        statefulSets = new FakeStatefulSetController(client, ns).start();
        if (capacity > 0) {
            members(name, capacity);
        }
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        members.values().forEach(FakeMembers::close);
        members.clear();
        if (statefulSets != null) {
            statefulSets.close();
        }
        operator.afterEach(context);
    }

    // ---- the fakes ----

    public String ns() {
        return ns;
    }

    public FakeStatefulSetController statefulSets() {
        return statefulSets;
    }

    /** The fake members of the fixture's cluster. */
    public FakeMembers members() {
        return members.get(name);
    }

    /** The fake members of cluster {@code cluster}, made with room for {@code capacity} on first use. */
    public FakeMembers members(String cluster, int capacity) {
        return members.computeIfAbsent(
                cluster, c -> new FakeMembers(client, ns, c, PLATFORM.clusterDomain(), capacity));
    }

    /**
     * Uses {@code fake} (say, {@link FakeMembers#onOneServer} or {@link FakeMembers#ofRacks}) as the fixture cluster's
     * members instead of those it had (closed now); closed at the end.
     */
    public FakeMembers use(FakeMembers fake) {
        var before = members.put(name, fake);
        if (before != null) {
            before.close();
        }
        return fake;
    }

    /** The operator under test (to stop it, or to read and replace resources as it does). */
    public LocallyRunOperatorExtension operator() {
        return operator;
    }

    /** Creates {@code resource} in the test's namespace. */
    public <T extends HasMetadata> T create(T resource) {
        return operator.create(resource);
    }

    // ---- the DhtCluster ----

    public DhtCluster cluster(int replicas, Consumer<DhtClusterSpec> change) {
        return cluster(name, replicas, change);
    }

    public DhtCluster cluster(String name, int replicas, Consumer<DhtClusterSpec> change) {
        var cluster = new DhtCluster();
        cluster.getMetadata().setName(name);
        cluster.getMetadata().setNamespace(ns);
        cluster.setSpec(new DhtClusterSpec());
        cluster.getSpec().replicas = replicas;
        cluster.getSpec().tls = FakeMembers.plaintextClientPort(); // the fakes answer HTTP
        change.accept(cluster.getSpec());
        return cluster;
    }

    public DhtCluster current() {
        return current(name);
    }

    public DhtCluster current(String cluster) {
        return client.resources(DhtCluster.class)
                .inNamespace(ns)
                .withName(cluster)
                .get();
    }

    /** {@code kubectl scale} of the fixture's cluster: through the scale subresource, as a user does. */
    public void scale(int replicas) {
        Processes.kubectl("scale", "dht/" + name, "--replicas=" + replicas, "-n", ns)
                .orFail("kubectl scale");
    }

    /** Edits the spec of the fixture's cluster. */
    public void edit(Consumer<DhtClusterSpec> change) {
        edit(name, change);
    }

    /** Edits the spec of {@code cluster}. */
    public void edit(String cluster, Consumer<DhtClusterSpec> change) {
        client.resources(DhtCluster.class).inNamespace(ns).withName(cluster).edit(c -> {
            change.accept(c.getSpec());
            return c;
        });
    }

    public StatefulSet statefulSet() {
        return client.apps().statefulSets().inNamespace(ns).withName(name).get();
    }

    public ConfigMap config() {
        return client.configMaps().inNamespace(ns).withName(name + "-config").get();
    }

    public int topologyMembers() {
        return Topology.members(client.configMaps()
                        .inNamespace(ns)
                        .withName(Names.topologyConfigMap(name))
                        .get())
                .size();
    }

    public void awaitPhase(Phase phase) {
        awaitStatus(s -> assertThat(s.phase).isEqualTo(phase));
    }

    public void awaitStatus(Consumer<DhtClusterStatus> check) {
        awaitStatus(name, check);
    }

    public void awaitStatus(String cluster, Consumer<DhtClusterStatus> check) {
        waiting().untilAsserted(() -> {
            var c = current(cluster);
            assertThat(c.getStatus()).as("status of " + cluster).isNotNull();
            check.accept(c.getStatus());
        });
    }

    public static Condition condition(DhtClusterStatus s, String type) {
        return Conditions.find(s.conditions, type).orElseThrow(() -> new AssertionError("no condition " + type));
    }

    public static ConditionFactory waiting() {
        return await().atMost(FUNCTIONAL_BOUND).pollInterval(Duration.ofMillis(100));
    }
}
