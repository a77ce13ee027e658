package dev.dht.operator.reconciler;

import dev.dht.operator.api.v1alpha1.DhtCluster;
import dev.dht.operator.api.v1alpha1.DhtClusterStatus;
import dev.dht.operator.api.v1alpha1.Phase;
import dev.dht.operator.model.Member;
import dev.dht.operator.nodeadmin.MemberAddresses;
import dev.dht.operator.nodeadmin.NodeCredentials;
import dev.dht.operator.upgrade.FeatureLevelPlan;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Instant;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cluster feature level (upgrade/FeatureLevelPlan): polls the members' releases, raises the members the plan
 * names, and writes releases, levels and the FeatureLevel condition into the status.
 */
final class FeatureLevelStep {
    private static final Logger log = LoggerFactory.getLogger(FeatureLevelStep.class);

    private final ReleasePolls polls;
    private final MemberAddresses addresses;

    FeatureLevelStep(ReleasePolls polls, MemberAddresses addresses) {
        this.polls = polls;
        this.addresses = addresses;
    }

    /** @return whether to look again soon (a raise was just sent and taken; a refused one waits for the steady poll) */
    boolean run(
            DhtCluster cluster,
            Collection<Pod> pods,
            Function<Member, String> adminUrl,
            DhtClusterStatus status,
            List<Condition> previous,
            NodeCredentials credentials,
            Instant now) {
        var reports = polls.reports(cluster, pods, adminUrl, credentials, now);
        var spec = cluster.getSpec();
        boolean hold = spec.upgrade != null && Boolean.TRUE.equals(spec.upgrade.holdFeatureLevel);
        var planned = FeatureLevelPlan.decide(
                status.members.stream().map(m -> m.name).toList(),
                reports,
                spec.featureLevel,
                hold,
                status.phase == Phase.Ready);
        var plan = planned;
        boolean sent = false;
        if (!planned.toRaise().isEmpty()) {
            int target = plan.target().orElseThrow();
            String namespace = cluster.getMetadata().getNamespace();
            var urls = new LinkedHashMap<String, String>();
            status.members.stream()
                    .filter(m -> planned.toRaise().contains(m.name))
                    .forEach(m -> urls.put(m.name, addresses.privilegedUrl(namespace, m.name, m.url)));
            log.info(
                    "{}/{}: raising the feature level to {} on {}",
                    namespace,
                    cluster.getMetadata().getName(),
                    target,
                    urls.keySet());
            var refused = polls.raise(cluster, urls, target, credentials);
            sent = refused.isEmpty();
            if (!refused.isEmpty()) {
                log.warn(
                        "{}/{}: the feature level raise was refused: {}",
                        namespace,
                        cluster.getMetadata().getName(),
                        refused);
                plan = new FeatureLevelPlan(
                        plan.release(),
                        plan.level(),
                        plan.target(),
                        plan.toRaise(),
                        false,
                        "RaiseRefused",
                        plan.message() + "; refused: " + refused);
            }
        }
        plan.describe(status, reports, previous, now);
        return sent;
    }
}
