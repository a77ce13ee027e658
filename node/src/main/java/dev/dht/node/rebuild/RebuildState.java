package dev.dht.node.rebuild;

import dev.dht.node.json.Json;
import dev.dht.node.storage.SideTable;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The rebuild's persisted state, in the store's repair family (so it is lost exactly when the data is): written
 * before the node serves anything, so that a restart in the middle resumes instead of serving a partial copy.
 * Also the heartbeat: when the node last ran (a node down longer than the tombstone grace must not serve before it
 * caught up).
 *
 * @param phase      "deciding" (an empty store: is the cluster new, or was the data lost?) or "rebuilding"
 * @param reason     why, for the status
 * @param startedAt  wall ms
 * @param ringId     the member set the progress counts in (another one: start over)
 * @param next       this node's arcs (in ring order) pulled so far
 */
record RebuildState(String phase, String reason, long startedAt, String ringId, int next) {
    static final String DECIDING = "deciding";
    static final String REBUILDING = "rebuilding";
    private static final byte[] KEY = "rebuild".getBytes(StandardCharsets.UTF_8);
    private static final byte[] HEARTBEAT = "heartbeat".getBytes(StandardCharsets.UTF_8);

    /** As stored in the side table (the member set as "ring"). */
    private record Stored(String phase, String reason, long startedAt, String ring, int next) {}

    static RebuildState load(SideTable table) {
        RebuildState[] found = {null};
        table.scan(KEY, (key, value) -> {
            if (key.length == KEY.length) {
                Stored m = Json.read(value, Stored.class);
                found[0] = new RebuildState(m.phase(), m.reason(), m.startedAt(), m.ring(), m.next());
            }
            return false;
        });
        return found[0];
    }

    void save(SideTable table) {
        table.put(KEY, Json.bytes(new Stored(phase, reason, startedAt, ringId, next)));
    }

    static void clear(SideTable table) {
        table.delete(KEY);
    }

    RebuildState at(String ring, int n) {
        return new RebuildState(phase, reason, startedAt, ring, n);
    }

    /** Wall ms of the last heartbeat, or 0 if none. */
    static long heartbeat(SideTable table) {
        long[] at = {0};
        table.scan(HEARTBEAT, (key, value) -> {
            if (key.length == HEARTBEAT.length && value.length == 8) {
                at[0] = ByteBuffer.wrap(value).getLong();
            }
            return false;
        });
        return at[0];
    }

    static void beat(SideTable table, long wallMillis) {
        table.put(HEARTBEAT, ByteBuffer.allocate(8).putLong(wallMillis).array());
    }
}
