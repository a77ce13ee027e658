package dev.dht.operator.reconciler;

import dev.dht.operator.api.v1alpha1.DhtCluster;
import dev.dht.operator.backup.StoreView;
import dev.dht.operator.model.Member;
import dev.dht.operator.nodeadmin.AdminAnswer;
import dev.dht.operator.nodeadmin.MemberAdmin;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * The members' view of the object store ({@code GET /v0/admin/backup}'s {@code store}) for a cluster with
 * spec.backup, asked of every ready member at the repair poll's steady pace (30 s) or at once when the pods changed:
 * it moves when a member starts, a minute after a fixed Secret, or at a backup.
 */
final class StorePolls {
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(5);

    private final MemberAdmin admin;
    private final PacedPolls<StoreView> polls;

    StorePolls(MemberAdmin admin, Duration every) {
        this.admin = admin;
        this.polls = new PacedPolls<>(every);
    }

    StoreView view(
            DhtCluster cluster,
            Collection<Pod> pods,
            Function<Member, String> adminUrl,
            dev.dht.operator.nodeadmin.NodeCredentials credentials,
            Instant now) {
        return polls.answers(RepairPolls.ReadyMembers.of(cluster, pods, adminUrl), now, members -> {
            var reports = members.urls().isEmpty()
                    ? Map.<Member, AdminAnswer>of()
                    : admin.authenticated(credentials)
                            .callAll(members.urls(), "GET", "/v0/admin/backup", m -> null, CALL_TIMEOUT);
            String name = cluster.getMetadata().getName();
            var byPod = new TreeMap<String, AdminAnswer>();
            reports.forEach((member, answer) -> byPod.put(member.pod(name), answer));
            return StoreView.of(byPod);
        });
    }
}
