package dev.dht.operator.model;

import dev.dht.operator.api.v1alpha1.DhtCluster;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;

/** The headless Service (stable member DNS names, peer discovery) and the client Service. */
public final class NodeServices {
    private NodeServices() {}

    public static Service headless(DhtCluster cluster, ClusterModel model) {
        return new ServiceBuilder()
                .withMetadata(Owners.metadata(cluster, Names.headlessService(model.name())))
                .withNewSpec()
                .withClusterIP("None")
                // Members must resolve each other while starting (before they are ready), or a cluster
                // whose nodes wait for peers would never become ready.
                .withPublishNotReadyAddresses(true)
                .withSelector(Labels.selector(model.name()))
                .addNewPort()
                .withName(Names.PORT_NAME)
                .withPort(Names.NODE_PORT)
                .withTargetPort(new IntOrString(Names.PORT_NAME))
                .withProtocol("TCP")
                .endPort()
                .endSpec()
                .build();
    }

    public static Service client(DhtCluster cluster, ClusterModel model) {
        return new ServiceBuilder()
                .withMetadata(Owners.metadata(cluster, Names.clientService(model.name())))
                .withNewSpec()
                .withType(model.serviceType().name())
                .withSelector(Labels.selector(model.name()))
                .addNewPort()
                .withName(Names.PORT_NAME)
                .withPort(model.servicePort())
                .withTargetPort(new IntOrString(Names.PORT_NAME))
                .withProtocol("TCP")
                .endPort()
                .endSpec()
                .build();
    }
}
