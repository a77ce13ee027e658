package dev.dht.node.restore;

import dev.dht.node.clock.HybridLogicalClock;
import dev.dht.node.peer.PeerCallback;
import dev.dht.node.peer.PeerClient;
import dev.dht.node.peer.PeerRequest;
import dev.dht.node.peer.PeerResponse;
import dev.dht.node.replication.Topology;
import dev.dht.node.topology.Json;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** A node waiting for a restore asks the other members, on the member plane, whether it is done. */
final class RestoreLearner {
    private static final Logger log = LoggerFactory.getLogger(RestoreLearner.class);

    private final RestoreGate gate;
    private final Topology topology;
    private final PeerClient client;
    private final HybridLogicalClock clock;
    private final String self;

    RestoreLearner(RestoreGate gate, Topology topology, PeerClient client, HybridLogicalClock clock, String self) {
        this.gate = gate;
        this.topology = topology;
        this.client = client;
        this.clock = clock;
        this.self = self;
    }

    /**
     * While waiting for a restore, asks the other members whether it is done: a member added after the restore, or
     * one restarted before the operator's call reached it, then serves as the others do.
     */
    void ask() {
        Topology.View v = topology.view();
        if (!gate.restoring() || !v.decided()) {
            return;
        }
        for (String member : v.serving()) {
            if (member.equals(self)) {
                continue;
            }
            client.send(member, new PeerRequest("GET", RestoreAgent.MEMBER_STATUS_PATH, clock.now(), 0, null,
                    v.requestHeader()), System.nanoTime() + TimeUnit.SECONDS.toNanos(2),
                    new PeerCallback() {
                        @Override
                        public void completed(PeerResponse response) {
                            if (response.status() != 200) {
                                return;
                            }
                            try {
                                Map<String, Object> m = Json.parseObject(
                                        new String(response.body(), StandardCharsets.UTF_8));
                                if ("done".equals(m.get("phase")) && Boolean.TRUE.equals(m.get("serving"))
                                        && gate.restoring()) {
                                    log.info("{} has finished restore {}: serving too", member, m.get("id"));
                                    gate.done((String) m.get("id"));
                                }
                            } catch (RuntimeException e) {
                                // not the contract's answer: ask again next round
                            }
                        }

                        @Override
                        public void failed(boolean timeout, String reason) {
                        }
                    });
        }
    }

}
