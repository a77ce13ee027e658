package dev.dht.node.api;

import dev.dht.node.http.AdminCalls;
import dev.dht.node.http.AdminHandler;
import dev.dht.node.http.Responses;
import dev.dht.node.json.Json;
import dev.dht.node.storage.RocksStore;
import dev.dht.node.storage.StoreException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * POST /v0/admin/flush (admin: a loopback peer or an admin token): writes the node's memtables out to table files
 * and answers when they are on disk, as Cassandra's {@code nodetool flush} does. For maintenance (a node stopped
 * right after has little WAL to replay on its next start) and for benchmarks: the replicas of a key get the same
 * writes and flush together, so a measurement that starts with flushed memtables on every member does not draw a
 * flush another measurement does not.
 */
public final class FlushEndpoint {
    public static final String PATH = "/v0/admin/flush";

    private FlushEndpoint() {}

    public static Map<String, AdminHandler> handlers(RocksStore store) {
        return Map.of(PATH, AdminCalls.handler(null, (request, responder) -> {
            long start = System.nanoTime();
            try {
                store.flush();
            } catch (StoreException e) {
                responder.send(Responses.json(Responses.INTERNAL_ERROR, Json.write(Map.of("error", e.getMessage()))));
                return;
            }
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("flushed", true);
            out.put("millis", (System.nanoTime() - start) / 1_000_000);
            responder.send(Responses.json(Responses.OK, Json.write(out)));
        }));
    }
}
