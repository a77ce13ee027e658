package dev.dht.node.topology;

import dev.dht.node.config.ClusterMembers;
import dev.dht.node.io.AtomicFiles;
import dev.dht.node.json.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * The node's topology state and its progress in the current move, persisted in the data directory as
 * {@value #NAME}: written to a temporary file, synced, then renamed over the old one, so a crash leaves either the
 * old or the new content (docs/cluster.md, "New members and restarts").
 *
 * @param state          the topology state
 * @param sent           at joint: this node's scan is finished and every batch acknowledged
 * @param resumeKey      at joint: every record before this key was sent and acknowledged (null: from the start)
 * @param cleanupPending a move finalized and this node has not dropped what it no longer holds
 * @param cleanupAmong   the members (S ∪ T of that move) that must all have finalized before the cleanup runs
 */
public record StateFile(
        TopologyState state, boolean sent, byte[] resumeKey, boolean cleanupPending, List<String> cleanupAmong) {
    public static final String NAME = "dht-topology.json";

    public StateFile {
        cleanupAmong = cleanupAmong == null ? List.of() : List.copyOf(cleanupAmong);
    }

    public static StateFile of(TopologyState state) {
        return new StateFile(state, false, null, false, List.of());
    }

    public StateFile withSent(boolean s) {
        return new StateFile(state, s, resumeKey, cleanupPending, cleanupAmong);
    }

    public StateFile withResumeKey(byte[] key) {
        return new StateFile(state, sent, key, cleanupPending, cleanupAmong);
    }

    public StateFile withCleanup(boolean pending, List<String> among) {
        return new StateFile(state, sent, resumeKey, pending, among);
    }

    /** The saved content, or null when the directory has none (a new node). */
    public static StateFile load(Path dir) throws IOException {
        Path file = dir.resolve(NAME);
        if (!Files.exists(file)) {
            return null;
        }
        String text = Files.readString(file, StandardCharsets.UTF_8);
        try {
            return fromJson(Json.read(text, Saved.class));
        } catch (IllegalArgumentException | ClassCastException e) {
            throw new IOException(file + " is not a topology state: " + e.getMessage(), e);
        }
    }

    public void save(Path dir) throws IOException {
        AtomicFiles.write(dir.resolve(NAME), Json.bytes(toJson()), true);
    }

    /**
     * The file as written: racks beside the lists, only when there are any (a file without racks is the one older
     * versions wrote and read).
     */
    record Saved(
            Long epoch,
            String stage,
            List<String> stable,
            List<String> target,
            Map<String, String> stableRacks,
            Map<String, String> targetRacks,
            boolean sent,
            String resume,
            boolean cleanupPending,
            List<String> cleanupAmong) {}

    Saved toJson() {
        ClusterMembers t = state.target();
        return new Saved(
                state.epoch(),
                state.stage().jsonName(),
                state.stable().urls(),
                t == null ? null : t.urls(),
                TopologyReport.racksOrNone(state.stable()),
                t == null ? null : TopologyReport.racksOrNone(t),
                sent,
                resumeKey == null ? null : HexFormat.of().formatHex(resumeKey),
                cleanupPending,
                cleanupAmong);
    }

    static StateFile fromJson(Saved m) {
        if (m.epoch() == null || m.stage() == null || m.stable() == null) {
            throw new IllegalArgumentException("missing epoch, stage or stable members");
        }
        ClusterMembers stable = ClusterMembers.of(m.stable(), TopologyReport.racks(m.stableRacks()));
        ClusterMembers target =
                m.target() == null ? null : ClusterMembers.of(m.target(), TopologyReport.racks(m.targetRacks()));
        return new StateFile(
                new TopologyState(m.epoch(), Stage.ofJson(m.stage()), stable, target),
                m.sent(),
                m.resume() == null ? null : HexFormat.of().parseHex(m.resume()),
                m.cleanupPending(),
                m.cleanupAmong());
    }
}
