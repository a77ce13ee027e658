package dev.dht.node.repair;

import dev.dht.node.storage.SideTable;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * What this node remembers of the rounds it coordinates, per replica set of the current member set (repair
 * family, {@code round/<ring>/<set>}): when the last round completed, and where a round in progress stands, so that
 * a restart resumes it instead of starting over.
 */
final class RoundLog {
    /** lastCompleted: wall ms (0 never); startedAt: wall ms of the round in progress (0 none); next: arcs done. */
    record Entry(long lastCompleted, long startedAt, int next) {
        static final Entry NONE = new Entry(0, 0, 0);

        boolean inProgress() {
            return startedAt != 0;
        }
    }

    private final SideTable table;

    RoundLog(SideTable table) {
        this.table = table;
    }

    private static byte[] key(String ringId, String group) {
        return ("round/" + ringId + "/" + group).getBytes(StandardCharsets.UTF_8);
    }

    Entry get(String ringId, String group) {
        byte[] k = key(ringId, group);
        Entry[] found = {Entry.NONE};
        table.scan(k, (key, value) -> {
            if (key.length == k.length && value.length == 20) {
                ByteBuffer b = ByteBuffer.wrap(value);
                found[0] = new Entry(b.getLong(), b.getLong(), b.getInt());
            }
            return false;
        });
        return found[0];
    }

    void put(String ringId, String group, Entry e) {
        table.put(
                key(ringId, group),
                ByteBuffer.allocate(20)
                        .putLong(e.lastCompleted())
                        .putLong(e.startedAt())
                        .putInt(e.next())
                        .array());
    }
}
