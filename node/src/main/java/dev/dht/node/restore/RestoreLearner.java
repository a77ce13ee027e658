package dev.dht.node.restore;

import dev.dht.node.clock.HybridLogicalClock;
import dev.dht.node.json.Json;
import dev.dht.node.peer.PeerCallback;
import dev.dht.node.peer.PeerClient;
import dev.dht.node.peer.PeerRequest;
import dev.dht.node.peer.PeerResponse;
import dev.dht.node.replication.Topology;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node waiting for a restore asks the other members, on the member plane, how far theirs is, and acts on it:
 * <ul>
 *   <li>it has loaded what it received and every other member has too (or serves): it serves. Until then none
 *   serves, so no client write reaches a member before it has loaded: a load overwrites the keys it loads;</li>
 *   <li>another member loads or has loaded this node's restore, and this node has sent its share but was never told
 *   to finish (a call that did not reach it): it finishes too;</li>
 *   <li>another member serves after a restore and this node has none of its own (it was added later): it
 *   serves.</li>
 * </ul>
 */
final class RestoreLearner {
    private static final Logger log = LoggerFactory.getLogger(RestoreLearner.class);

    /** This node's restore: its id (null: none) and phase. */
    record Local(String id, String phase) {}

    /** What a member answered last: its restore's id and phase, and whether it serves. */
    record Report(String id, String phase, boolean serving) {}

    /** What to do, given this node's restore and the other members' reports. */
    enum Action {
        NOTHING,
        FINISH,
        SERVE
    }

    private final RestoreGate gate;
    private final Topology topology;
    private final PeerClient client;
    private final HybridLogicalClock clock;
    private final String self;
    private final Supplier<Local> local;
    private final Consumer<String> finish;
    private final Consumer<String> serve;
    private final Map<String, Report> reports = new ConcurrentHashMap<>();

    RestoreLearner(
            RestoreGate gate,
            Topology topology,
            PeerClient client,
            HybridLogicalClock clock,
            String self,
            Supplier<Local> local,
            Consumer<String> finish,
            Consumer<String> serve) {
        this.gate = gate;
        this.topology = topology;
        this.client = client;
        this.clock = clock;
        this.self = self;
        this.local = local;
        this.finish = finish;
        this.serve = serve;
    }

    /**
     * The decision, from this node's restore and the last report of each other member (a member missing from
     * reports has not answered yet). Returns the action and the restore id it is for.
     */
    static Map.Entry<Action, String> decide(Local mine, List<String> others, Map<String, Report> reports) {
        for (Report r : reports.values()) {
            if ("done".equals(r.phase()) && r.serving() && r.id() != null) {
                if (!r.id().equals(mine.id())) {
                    // a restore this node has no part in (it was added later); with one of its own, it waits for it
                    return Map.entry(mine.id() == null ? Action.SERVE : Action.NOTHING, r.id());
                }
                if ("loaded".equals(mine.phase()) || "done".equals(mine.phase())) {
                    return Map.entry(Action.SERVE, r.id()); // it serves: every member had loaded
                }
                if ("streamed".equals(mine.phase())) {
                    return Map.entry(Action.FINISH, r.id());
                }
                return Map.entry(Action.NOTHING, r.id()); // loading: serve once loaded
            }
        }
        if (mine.id() == null) {
            return Map.entry(Action.NOTHING, "");
        }
        if ("streamed".equals(mine.phase())) {
            for (Report r : reports.values()) {
                if (mine.id().equals(r.id()) && ("loading".equals(r.phase()) || "loaded".equals(r.phase()))) {
                    return Map.entry(Action.FINISH, mine.id());
                }
            }
        }
        if ("loaded".equals(mine.phase())) {
            for (String member : others) {
                Report r = reports.get(member);
                if (r == null
                        || !mine.id().equals(r.id())
                        || !("loaded".equals(r.phase()) || "done".equals(r.phase()))) {
                    return Map.entry(Action.NOTHING, mine.id());
                }
            }
            return Map.entry(Action.SERVE, mine.id());
        }
        return Map.entry(Action.NOTHING, mine.id());
    }

    /**
     * Asks every other member; each answer may settle what this node does. The restore's timer runs it
     * (DaemonThreads.repeat: a failure is logged and the next tick tries again); an answer's action runs in the peer
     * client's callback, which logs a failure the same way.
     */
    void ask() {
        Topology.View v = topology.view();
        if (!gate.restoring() || !v.decided()) {
            return;
        }
        List<String> others = v.serving().stream().filter(m -> !m.equals(self)).toList();
        reports.keySet().retainAll(others);
        act(others); // a single-member cluster has no one to ask
        for (String member : others) {
            client.send(
                    member,
                    new PeerRequest("GET", RestoreAgent.MEMBER_STATUS_PATH, clock.now(), 0, null, v.requestHeader()),
                    System.nanoTime() + TimeUnit.SECONDS.toNanos(2),
                    new PeerCallback() {
                        @Override
                        public void completed(PeerResponse response) {
                            if (response.status() != 200) {
                                return;
                            }
                            try {
                                reports.put(member, Json.read(response.body(), Report.class));
                            } catch (RuntimeException e) {
                                return; // not the contract's answer: ask again next round
                            }
                            act(others);
                        }

                        @Override
                        public void failed(boolean timeout, String reason) {}
                    });
        }
    }

    private synchronized void act(List<String> others) {
        if (!gate.restoring()) {
            return;
        }
        Map.Entry<Action, String> d = decide(local.get(), others, reports);
        switch (d.getKey()) {
            case SERVE -> {
                log.info("restore {}: every member has loaded what it received (or serves): serving", d.getValue());
                serve.accept(d.getValue());
            }
            case FINISH -> {
                log.info(
                        "restore {}: the other members are finishing it: loading what this node received",
                        d.getValue());
                finish.accept(d.getValue());
            }
            case NOTHING -> {}
        }
    }
}
