package dev.dht.operator.testing;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.dht.operator.model.Names;
import dev.dht.operator.model.Topology;
import dev.dht.operator.nodeadmin.MemberAddresses;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;

/**
 * Stands in for the nodes' admin API, as {@link FakeStatefulSetController} stands in for the StatefulSet controller:
 * one HTTP server on loopback per member of one cluster, each answering {@code GET /v0/admin/movement} with the
 * node's JSON. The members learn their member list from the real topology ConfigMap (an informer plays the kubelet
 * that delivers it) and, scripted, report "moving" for a number of polls after each change of the list (or as long
 * as a test holds them), then "idle" on the new list, a member or not, as a node does.
 */
public final class FakeMembers implements MemberAddresses, AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final String namespace;
    private final String cluster;
    private final String clusterDomain;
    private final List<HttpServer> servers = new ArrayList<>();
    private final Map<String, String> urlsByPod = new LinkedHashMap<>();
    private final Map<String, Member> members = new ConcurrentHashMap<>();
    private final SharedIndexInformer<ConfigMap> topology;
    private volatile int movingPolls = 2;
    private final FakeBackups backups = new FakeBackups();

    /** The state of one fake node. */
    private final class Member {
        final String pod;
        List<String> served; // the list it finished moving to (null: none seen yet)
        List<String> target;
        int pollsSinceChange;
        int totalPolls;
        boolean held;
        boolean heldWhileLeaving;
        // GET /v0/admin/repair: the last round and the oldest range repair (wall ms), and a rebuild if one runs
        long lastRoundAt = System.currentTimeMillis();
        long oldestRangeRepair = System.currentTimeMillis();
        long rangesOutOfSync;
        long bytesRepaired;
        long rebuildDone = -1;
        long rebuildTotal;
        int repairPolls;
        // GET/POST /v0/admin/feature-level: "0.1.0" has no such endpoint (404), as that release
        String release = "0.2.0";
        int featureLevel = 1;
        int maxFeatureLevel = 2;
        int releasePolls;
        // GET /metrics: dht_hints_pending; a data movement of its own (a rebuild, a move the test stands for)
        long hintsPending;
        boolean busy;
        int metricsPolls;

        Member(String pod) {
            this.pod = pod;
        }

        synchronized String releaseNow() {
            return release;
        }

        String self() {
            return Names.memberUrl(pod, cluster, namespace, clusterDomain);
        }

        synchronized void learn(List<String> list) {
            if (served == null) {
                served = list; // a fresh cluster starts stable on its first list
                target = list;
            } else if (!list.equals(target)) {
                target = list;
                pollsSinceChange = 0;
            }
        }

        synchronized Map<String, Object> poll() {
            totalPolls++;
            var answer = new LinkedHashMap<String, Object>();
            if (target == null) {
                answer.put("state", "moving");
                answer.put("member", false);
                answer.put(
                        "topology",
                        Map.of("epoch", 0, "id", "", "phase", "joint", "stage", "starting", "members", List.of()));
                return answer;
            }
            boolean leaving = heldWhileLeaving && !target.contains(self());
            boolean listMoving = !target.equals(served) && (held || leaving || pollsSinceChange < movingPolls);
            boolean moving = busy || listMoving;
            pollsSinceChange++;
            if (!listMoving) {
                served = target;
            }
            long keysLeft = moving ? 1000L * Math.max(1, movingPolls - pollsSinceChange + 1) : 0;
            answer.put("state", moving ? "moving" : "idle");
            answer.put("member", target.contains(self()));
            var topo = new LinkedHashMap<String, Object>();
            topo.put("epoch", 1);
            topo.put("id", Integer.toHexString(target.hashCode()));
            topo.put("phase", moving ? "joint" : "stable");
            topo.put("stage", moving ? "joint" : "stable");
            topo.put("members", new ArrayList<>(new TreeSet<>(target)));
            topo.put("previous", moving ? new ArrayList<>(new TreeSet<>(served)) : null);
            answer.put("topology", topo);
            answer.put("ranges", Map.of("done", 0, "left", moving ? 1 : 0));
            answer.put("keys", Map.of("sent", 0, "received", 0, "left", keysLeft));
            answer.put("bytes", Map.of("sent", 0, "received", 0, "left", keysLeft * 128));
            answer.put("cleanup", Map.of("pending", false, "running", false, "dropped", 0));
            answer.put("sent", !moving);
            answer.put("waitingFor", moving ? "members still sending" : null);
            return answer;
        }

        synchronized Map<String, Object> repair() {
            repairPolls++;
            var answer = new LinkedHashMap<String, Object>();
            answer.put("enabled", true);
            answer.put("state", "idle");
            var last = new LinkedHashMap<String, Object>();
            last.put("at", lastRoundAt);
            last.put("rangesOutOfSync", rangesOutOfSync);
            last.put("keysRepaired", 0);
            answer.put("lastRound", last);
            answer.put("oldestRangeRepair", oldestRangeRepair);
            answer.put("totals", Map.of("bytesRepaired", bytesRepaired));
            var rebuild = new LinkedHashMap<String, Object>();
            rebuild.put("state", rebuildDone < 0 ? "ready" : "rebuilding");
            rebuild.put("rangesDone", Math.max(0, rebuildDone));
            rebuild.put("rangesTotal", rebuildTotal);
            rebuild.put("bytesReceived", Math.max(0, rebuildDone) << 20);
            answer.put("rebuild", rebuild);
            return answer;
        }
    }

    /** A raise a member was sent: the level, and every member's release at that moment. */
    public record Raise(String pod, int level, Map<String, String> releases) {}

    private final List<Raise> raises = new java.util.concurrent.CopyOnWriteArrayList<>();

    private void featureLevel(HttpExchange exchange, Member member) throws IOException {
        Map<String, Object> answer;
        int status = 200;
        // every member's release as the raise arrives (taken before this member's lock: no lock order between members)
        var releases = new java.util.TreeMap<String, String>();
        members.values().forEach(m -> releases.put(m.pod, m.releaseNow()));
        synchronized (member) {
            if ("0.1.0".equals(member.release)) {
                exchange.sendResponseHeaders(404, -1);
                exchange.close();
                return;
            }
            member.releasePolls++;
            if ("POST".equals(exchange.getRequestMethod())) {
                int level = ((Number) JSON.readValue(exchange.getRequestBody(), Map.class)
                                .get("level"))
                        .intValue();
                raises.add(new Raise(member.pod, level, releases));
                if (level > member.maxFeatureLevel) {
                    status = 400;
                } else {
                    member.featureLevel = Math.max(member.featureLevel, level);
                }
            }
            answer = new LinkedHashMap<>(Map.of(
                    "release",
                    member.release,
                    "featureLevel",
                    member.featureLevel,
                    "maxFeatureLevel",
                    member.maxFeatureLevel));
        }
        byte[] body = JSON.writeValueAsBytes(answer);
        exchange.getResponseHeaders().add("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, body.length);
        exchange.getResponseBody().write(body);
        exchange.close();
    }

    private void metrics(HttpExchange exchange, Member member) throws IOException {
        long pending;
        synchronized (member) {
            member.metricsPolls++;
            pending = member.hintsPending;
        }
        byte[] body = ("# TYPE dht_hints_pending gauge\ndht_hints_pending " + pending + ".0\n")
                .getBytes(java.nio.charset.StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", "text/plain; version=0.0.4");
        exchange.sendResponseHeaders(200, body.length);
        exchange.getResponseBody().write(body);
        exchange.close();
    }

    /** The hints the member holds for others, as its /metrics reports them. */
    public void hintsPending(String pod, long pending) {
        Member m = member(pod);
        synchronized (m) {
            m.hintsPending = pending;
        }
    }

    /** The member reports a data movement of its own ("moving") while busy, whatever the topology. */
    public void busy(String pod, boolean busy) {
        Member m = member(pod);
        synchronized (m) {
            m.busy = busy;
        }
    }

    /** /metrics answers a member gave. */
    public int metricsPolls(String pod) {
        Member m = member(pod);
        synchronized (m) {
            return m.metricsPolls;
        }
    }

    /** The member runs this release (0.1.0: no feature-level endpoint, level 1 only; later ones know level 2). */
    public void runs(String pod, String release) {
        Member m = member(pod);
        synchronized (m) {
            m.release = release;
            m.maxFeatureLevel = "0.1.0".equals(release) ? 1 : 2;
        }
    }

    /** The feature level a member runs at. */
    public int featureLevel(String pod) {
        Member m = member(pod);
        synchronized (m) {
            return m.featureLevel;
        }
    }

    /** Feature-level calls a member answered (0.1.0 members answer none). */
    public int releasePolls(String pod) {
        Member m = member(pod);
        synchronized (m) {
            return m.releasePolls;
        }
    }

    /** Every raise sent to any member, in order. */
    public List<Raise> raises() {
        return List.copyOf(raises);
    }

    /** Starts {@code capacity} fake members (ordinals 0..capacity-1) of cluster {@code cluster} in {@code namespace}. */
    public FakeMembers(KubernetesClient client, String namespace, String cluster, String clusterDomain, int capacity) {
        this(
                client,
                namespace,
                cluster,
                clusterDomain,
                java.util.stream.IntStream.range(0, capacity)
                        .mapToObj(i -> Names.pod(cluster, i))
                        .toList());
    }

    /** Starts one fake member per rack and ordinal: {@code capacity} of each rack (ordinals 0..capacity-1). */
    public static FakeMembers ofRacks(
            KubernetesClient client,
            String namespace,
            String cluster,
            String clusterDomain,
            List<String> racks,
            int capacity) {
        return new FakeMembers(
                client,
                namespace,
                cluster,
                clusterDomain,
                racks.stream()
                        .flatMap(r ->
                                java.util.stream.IntStream.range(0, capacity).mapToObj(i -> Names.pod(cluster, r, i)))
                        .toList());
    }

    /**
     * {@code count} fake members on one loopback server with a few threads, each under its own path
     * ({@code http://127.0.0.1:port/<pod>}): for clusters of hundreds of members (the scale simulation), where a
     * server and a thread per member would cost more than the members answer.
     */
    public static FakeMembers onOneServer(
            KubernetesClient client, String namespace, String cluster, String clusterDomain, int count) {
        return new FakeMembers(
                client,
                namespace,
                cluster,
                clusterDomain,
                java.util.stream.IntStream.range(0, count)
                        .mapToObj(i -> Names.pod(cluster, i))
                        .toList(),
                true);
    }

    private FakeMembers(
            KubernetesClient client, String namespace, String cluster, String clusterDomain, List<String> pods) {
        this(client, namespace, cluster, clusterDomain, pods, false);
    }

    private FakeMembers(
            KubernetesClient client,
            String namespace,
            String cluster,
            String clusterDomain,
            List<String> pods,
            boolean oneServer) {
        this.namespace = namespace;
        this.cluster = cluster;
        this.clusterDomain = clusterDomain;
        try {
            HttpServer shared = null;
            if (oneServer) {
                shared = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
                shared.setExecutor(Executors.newFixedThreadPool(4, r -> {
                    Thread t = new Thread(r, "fake-members-" + cluster);
                    t.setDaemon(true);
                    return t;
                }));
                servers.add(shared);
            }
            for (int i = 0; i < pods.size(); i++) {
                var member = new Member(pods.get(i));
                members.put(member.pod, member);
                var server = shared;
                if (server == null) {
                    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
                    server.setExecutor(
                            Executors.newSingleThreadExecutor(r -> new Thread(r, "fake-member-" + member.pod)));
                    servers.add(server);
                }
                String prefix = shared == null ? "" : "/" + member.pod;
                server.createContext(prefix + "/v0/admin/movement", exchange -> answer(exchange, member.poll()));
                server.createContext(prefix + "/v0/admin/repair", exchange -> answer(exchange, member.repair()));
                server.createContext(prefix + "/v0/admin/feature-level", exchange -> featureLevel(exchange, member));
                server.createContext(prefix + "/metrics", exchange -> metrics(exchange, member));
                int ordinal = i;
                server.createContext(prefix + "/v0/admin/backup", exchange -> backups.serve(exchange, ordinal));
                server.createContext(prefix + "/v0/admin/restore", exchange -> backups.serve(exchange, ordinal));
                if (shared == null) {
                    server.start();
                }
                urlsByPod.put(
                        namespace + "/" + member.pod,
                        "http://127.0.0.1:" + server.getAddress().getPort() + prefix);
            }
            if (shared != null) {
                shared.start();
            }
        } catch (IOException e) {
            close();
            throw new UncheckedIOException(e);
        }
        String topologyName = Names.topologyConfigMap(cluster);
        topology = client.configMaps()
                .inNamespace(namespace)
                .withName(topologyName)
                .inform(new ResourceEventHandler<>() {
                    @Override
                    public void onAdd(ConfigMap configMap) {
                        deliver(configMap);
                    }

                    @Override
                    public void onUpdate(ConfigMap before, ConfigMap after) {
                        deliver(after);
                    }

                    @Override
                    public void onDelete(ConfigMap configMap, boolean deletedFinalStateUnknown) {}
                });
    }

    private void deliver(ConfigMap configMap) {
        // The node serves URLs: a line's rack (RACK=URL) is not part of the list it reports.
        var list = Topology.members(configMap).stream().map(Topology::urlOf).toList();
        members.values().forEach(m -> m.learn(list));
    }

    private static void answer(HttpExchange exchange, Map<String, Object> json) throws IOException {
        byte[] body = JSON.writeValueAsBytes(json);
        exchange.getResponseHeaders().add("Content-Type", "application/json");
        exchange.sendResponseHeaders(200, body.length);
        exchange.getResponseBody().write(body);
        exchange.close();
    }

    /** The members' backup and restore side. */
    public FakeBackups backups() {
        return backups;
    }

    /** After each change of the list, every member reports moving for this many polls (default 2). */
    /**
     * The clusters these stand-ins serve keep their client port in plaintext: the fakes answer HTTP (the operator's
     * admin calls over TLS are SecurityIT's: its client-port stand-ins speak TLS with the cluster's Secret).
     */
    public static dev.dht.operator.api.v1alpha1.TlsSpec plaintextClientPort() {
        var tls = new dev.dht.operator.api.v1alpha1.TlsSpec();
        tls.client = new dev.dht.operator.api.v1alpha1.ClientTlsSpec();
        tls.client.enabled = false;
        return tls;
    }

    public FakeMembers movingPolls(int polls) {
        this.movingPolls = polls;
        return this;
    }

    /** The members keep reporting "moving" after a change until {@link #release}d. */
    public void hold(int... ordinals) {
        hold(pods(ordinals));
    }

    public void release(int... ordinals) {
        release(pods(ordinals));
    }

    /** The members (by pod name) keep reporting "moving" after a change until released. */
    public void hold(String... pods) {
        for (String pod : pods) {
            synchronized (member(pod)) {
                member(pod).held = true;
            }
        }
    }

    public void release(String... pods) {
        for (String pod : pods) {
            synchronized (member(pod)) {
                member(pod).held = false;
            }
        }
    }

    /**
     * The member hands its data over slowly: it keeps reporting "moving" on any list that no longer names it, until
     * {@link #releaseLeaving}; a list that still names it settles as usual.
     */
    public void holdWhileLeaving(String pod) {
        synchronized (member(pod)) {
            member(pod).heldWhileLeaving = true;
        }
    }

    public void releaseLeaving(String pod) {
        synchronized (member(pod)) {
            member(pod).heldWhileLeaving = false;
        }
    }

    private String[] pods(int... ordinals) {
        return java.util.stream.IntStream.of(ordinals)
                .mapToObj(i -> Names.pod(cluster, i))
                .toArray(String[]::new);
    }

    private Member member(int ordinal) {
        return member(Names.pod(cluster, ordinal));
    }

    private Member member(String pod) {
        Member m = members.get(pod);
        if (m == null) {
            throw new IllegalArgumentException("no fake member " + pod + " (have " + members.keySet() + ")");
        }
        return m;
    }

    /** The member's last round and oldest range repair (wall ms), and what its last round found and sent. */
    public void repaired(int ordinal, long lastRoundAt, long oldestRangeRepair, long rangesOutOfSync, long bytes) {
        Member m = member(ordinal);
        synchronized (m) {
            m.lastRoundAt = lastRoundAt;
            m.oldestRangeRepair = oldestRangeRepair;
            m.rangesOutOfSync = rangesOutOfSync;
            m.bytesRepaired = bytes;
        }
    }

    /** The member reports a rebuild in progress: done of total ranges. */
    public void rebuilding(int ordinal, long done, long total) {
        Member m = member(ordinal);
        synchronized (m) {
            m.rebuildDone = done;
            m.rebuildTotal = total;
        }
    }

    /** The member's rebuild is done: it reports ready. */
    public void rebuilt(int ordinal) {
        rebuilding(ordinal, -1, 0);
    }

    /** Repair reports a member answered. */
    public int repairPolls(int ordinal) {
        Member m = member(ordinal);
        synchronized (m) {
            return m.repairPolls;
        }
    }

    /** Polls a member answered since its member list last changed. */
    public int pollsSinceChange(int ordinal) {
        return pollsSinceChange(Names.pod(cluster, ordinal));
    }

    public int pollsSinceChange(String pod) {
        synchronized (member(pod)) {
            return member(pod).pollsSinceChange;
        }
    }

    /** Polls every member answered in all (movement reports). */
    public long totalPolls() {
        long sum = 0;
        for (Member m : members.values()) {
            synchronized (m) {
                sum += m.totalPolls;
            }
        }
        return sum;
    }

    /** Polls a member answered in all. */
    public int totalPolls(int ordinal) {
        synchronized (member(ordinal)) {
            return member(ordinal).totalPolls;
        }
    }

    /** {@code <namespace>/<pod>} to the member's loopback URL (the operator setting DHT_OPERATOR_MEMBER_URLS). */
    public Map<String, String> urlsByPod() {
        return Map.copyOf(urlsByPod);
    }

    @Override
    public String adminUrl(String namespace, String pod, String memberUrl) {
        return urlsByPod.getOrDefault(namespace + "/" + pod, memberUrl);
    }

    /** The fake members' pod names. */
    public Set<String> pods() {
        return members.keySet();
    }

    @Override
    public void close() {
        if (topology != null) {
            topology.close();
        }
        servers.forEach(s -> s.stop(0));
    }
}
