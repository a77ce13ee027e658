package dev.dht.node.forget;

import dev.dht.node.config.ClusterMembers;
import dev.dht.node.storage.SideTable;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.function.Predicate;

/**
 * Members declared gone for good (Cassandra's removenode): persisted in the store's repair family
 * ({@code forgotten/<url>}), so a restart keeps them. A forgotten member is left out of the member list the node
 * moves to (the cluster file minus the forgotten), and no step of a move waits for it: the move that drops it is
 * streamed by the other replicas, which re-replicate its ranges (docs/cluster.md, "Forgetting a dead member").
 */
public final class ForgottenMembers implements Predicate<String> {
    private static final String PREFIX = "forgotten/";

    private final SideTable table;
    private final Set<String> members = new ConcurrentSkipListSet<>();

    public ForgottenMembers(SideTable table) {
        this.table = table;
        table.scan(PREFIX.getBytes(StandardCharsets.UTF_8), (key, value) -> {
            members.add(new String(key, StandardCharsets.UTF_8).substring(PREFIX.length()));
            return true;
        });
    }

    /** Whether the member was forgotten. */
    @Override
    public boolean test(String member) {
        return !members.isEmpty() && members.contains(member);
    }

    public void forget(String member) {
        table.put(key(member), new byte[0]);
        members.add(member);
    }

    /** Drops an entry (a member with that URL may join again, on a new data directory). */
    public void remember(String member) {
        table.delete(key(member));
        members.remove(member);
    }

    public List<String> all() {
        return List.copyOf(new TreeSet<>(members));
    }

    /** The list without the forgotten members, racks kept (the same object when none of them is in it). */
    public ClusterMembers without(ClusterMembers list) {
        if (members.isEmpty() || list.urls().stream().noneMatch(members::contains)) {
            return list;
        }
        return list.without(members);
    }

    private static byte[] key(String member) {
        return (PREFIX + member).getBytes(StandardCharsets.UTF_8);
    }
}
