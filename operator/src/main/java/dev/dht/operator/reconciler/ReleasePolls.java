package dev.dht.operator.reconciler;

import dev.dht.operator.api.v1alpha1.DhtCluster;
import dev.dht.operator.model.Member;
import dev.dht.operator.nodeadmin.AdminAnswer;
import dev.dht.operator.nodeadmin.MemberAdmin;
import dev.dht.operator.nodeadmin.NodeCredentials;
import dev.dht.operator.upgrade.MemberRelease;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * The ready members' releases and feature levels ({@code GET /v0/admin/feature-level}), asked at the repair poll's
 * steady pace (30 s) or at once when the pods changed (a rolled member is a new pod), and the raise
 * ({@code POST /v0/admin/feature-level}, a privileged call) after which they are asked again.
 */
final class ReleasePolls {
    static final String PATH = "/v0/admin/feature-level";
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(5);

    private final MemberAdmin admin;
    private final PacedPolls<Map<String, MemberRelease>> polls;

    ReleasePolls(MemberAdmin admin, Duration every) {
        this.admin = admin;
        this.polls = new PacedPolls<>(every);
    }

    /** The ready members' reports, by pod name. */
    Map<String, MemberRelease> reports(
            DhtCluster cluster,
            Collection<Pod> pods,
            Function<Member, String> adminUrl,
            NodeCredentials credentials,
            Instant now) {
        return polls.answers(RepairPolls.ReadyMembers.of(cluster, pods, adminUrl), now, members -> {
            var answers = members.urls().isEmpty()
                    ? Map.<Member, AdminAnswer>of()
                    : admin.authenticated(credentials).callAll(members.urls(), "GET", PATH, m -> null, CALL_TIMEOUT);
            String name = cluster.getMetadata().getName();
            var byPod = new TreeMap<String, MemberRelease>();
            answers.forEach((member, answer) -> byPod.put(member.pod(name), MemberRelease.of(answer)));
            return byPod;
        });
    }

    /**
     * Raises each member (privileged URL by pod name) to the level; the next {@link #reports} asks again.
     *
     * @return the refusals, by pod name (empty: every member raised)
     */
    Map<String, String> raise(
            DhtCluster cluster, Map<String, String> privilegedUrls, int level, NodeCredentials credentials) {
        polls.forget(cluster.getMetadata().getNamespace() + "/"
                + cluster.getMetadata().getName());
        var answers = admin.authenticated(credentials)
                .callAll(privilegedUrls, "POST", PATH, pod -> Map.of("level", level), CALL_TIMEOUT);
        var refused = new TreeMap<String, String>();
        answers.forEach((pod, answer) -> {
            if (answer.status() != 200) {
                refused.put(pod, answer.reason());
            }
        });
        return refused;
    }
}
