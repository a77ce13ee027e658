package dev.dht.operator.upgrade;

import dev.dht.operator.api.v1alpha1.DhtClusterSpec;
import dev.dht.operator.model.NodeStatefulSet;
import dev.dht.operator.model.Platform;
import dev.dht.operator.model.ProfilerSidecar;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import java.util.Collection;
import java.util.Objects;
import java.util.Optional;

/**
 * Which node image a cluster runs: the cluster's own choice, never the operator's version (pure). An operator
 * upgrade changes the operator's default images (the chart's appVersion); a cluster whose pods took those defaults
 * would otherwise be rolled by it, every member restarted by an upgrade nobody asked the database for (the complaint
 * against several operators in ../shared/notes/upgrades.md). So:
 *
 * <ul>
 *   <li>{@code spec.image}: that image;
 *   <li>{@code spec.version}: the operator's node image repository at that tag (dht-node:0.2.0);
 *   <li>neither: the image the cluster's pods already run (its live StatefulSets), and the operator's default only for
 *       a cluster that has none yet.
 * </ul>
 *
 * The profiler sidecar (the operator's load-runner image) is kept the same way while the node image stays: it changes
 * with the node image, when the pods roll anyway.
 */
public final class NodeVersion {
    private NodeVersion() {}

    /**
     * The platform the cluster's desired state is built with: its default images those the cluster keeps.
     *
     * @param live the cluster's live StatefulSets (any order; the first that has a node container decides)
     */
    public static Platform platformFor(DhtClusterSpec spec, Platform platform, Collection<StatefulSet> live) {
        var liveNode = live.stream()
                .map(s -> container(s, NodeStatefulSet.CONTAINER))
                .flatMap(Optional::stream)
                .map(Container::getImage)
                .filter(Objects::nonNull)
                .findFirst();
        String node = image(spec, platform.defaultNodeImage(), liveNode);
        String runner = platform.runnerImage();
        if (liveNode.isPresent() && liveNode.get().equals(node)) {
            runner = live.stream()
                    .map(s -> container(s, ProfilerSidecar.CONTAINER))
                    .flatMap(Optional::stream)
                    .map(Container::getImage)
                    .filter(Objects::nonNull)
                    .findFirst()
                    .orElse(runner);
        }
        return new Platform(node, platform.clusterDomain(), runner, platform.operator());
    }

    /** The node image: spec.image, else spec.version at the operator's repository, else the live one, else the default. */
    public static String image(DhtClusterSpec spec, String defaultImage, Optional<String> live) {
        if (spec != null && spec.image != null && !spec.image.isBlank()) {
            return spec.image;
        }
        if (spec != null && spec.version != null && !spec.version.isBlank()) {
            return repository(defaultImage) + ":" + spec.version;
        }
        return live.orElse(defaultImage);
    }

    /** An image reference without its tag or digest ("registry:5000/dht-node:0.2.0" gives "registry:5000/dht-node"). */
    static String repository(String image) {
        int at = image.indexOf('@');
        String named = at < 0 ? image : image.substring(0, at);
        int slash = named.lastIndexOf('/');
        int colon = named.indexOf(':', slash + 1);
        return colon < 0 ? named : named.substring(0, colon);
    }

    private static Optional<Container> container(StatefulSet sts, String name) {
        if (sts.getSpec() == null
                || sts.getSpec().getTemplate() == null
                || sts.getSpec().getTemplate().getSpec() == null) {
            return Optional.empty();
        }
        return sts.getSpec().getTemplate().getSpec().getContainers().stream()
                .filter(c -> name.equals(c.getName()))
                .findFirst();
    }
}
