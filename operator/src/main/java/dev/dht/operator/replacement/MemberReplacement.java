package dev.dht.operator.replacement;

import dev.dht.operator.model.Names;
import dev.dht.operator.model.NodeStatefulSet;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * Replacing a member whose volume is lost or unusable (docs/operations.md, "Replacing a member"): its pod annotated
 * {@code dht.dev/replace=true} gets its PersistentVolumeClaim and then itself deleted; the StatefulSet makes a new
 * pod on a new, empty volume, and the node, finding a new data directory while the others hold data, rebuilds
 * from them before it serves reads. Deleting the claim and the pod by hand does the same.
 *
 * <p>Pure: from the observed pods and claims to the deletions to make. One repair of a known race: a pod made
 * while its old claim was still being deleted waits for that claim forever, so such a pod is deleted again (the
 * StatefulSet then makes both anew).
 */
public final class MemberReplacement {
    /** The annotation that asks for a member's replacement. */
    public static final String ANNOTATION = "dht.dev/replace";

    private MemberReplacement() {}

    /** What to delete, in this order. */
    public record Deletions(List<String> claims, List<String> pods) {
        public boolean none() {
            return claims.isEmpty() && pods.isEmpty();
        }
    }

    /** The claim of a member's data volume: the StatefulSet's template name and the pod's name. */
    public static String claimOf(String pod) {
        return NodeStatefulSet.DATA_VOLUME + "-" + pod;
    }

    public static Deletions decide(String cluster, Collection<Pod> pods, Map<String, PersistentVolumeClaim> claims) {
        var deleteClaims = new ArrayList<String>();
        var deletePods = new ArrayList<String>();
        String prefix = Names.statefulSet(cluster) + "-";
        for (Pod pod : pods) {
            String name = pod.getMetadata().getName();
            if (!name.startsWith(prefix) || pod.getMetadata().getDeletionTimestamp() != null) {
                continue;
            }
            var annotations = pod.getMetadata().getAnnotations();
            PersistentVolumeClaim claim = claims.get(claimOf(name));
            boolean claimGoing = claim != null && claim.getMetadata().getDeletionTimestamp() != null;
            if (annotations != null && "true".equals(annotations.get(ANNOTATION))) {
                if (claim != null && !claimGoing) {
                    deleteClaims.add(claimOf(name));
                }
                deletePods.add(name);
            } else if (claimGoing) {
                deletePods.add(name); // made while its old claim was being deleted: it would wait for it forever
            }
        }
        return new Deletions(deleteClaims, deletePods);
    }
}
