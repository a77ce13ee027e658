package dev.dht.operator.reconciler;

import dev.dht.operator.api.v1alpha1.DhtCluster;
import dev.dht.operator.api.v1alpha1.DhtClusterStatus;
import dev.dht.operator.model.ClusterModel;
import dev.dht.operator.model.DesiredState;
import dev.dht.operator.model.InvalidSpecException;
import dev.dht.operator.model.Labels;
import dev.dht.operator.model.Names;
import dev.dht.operator.model.Platform;
import dev.dht.operator.model.Topology;
import dev.dht.operator.status.StatusCalculator;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.ErrorStatusUpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.PrimaryUpdateAndCacheUtils;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.time.Clock;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reconciles a DhtCluster: build the desired objects from the spec (pure, {@code model/}), write
 * the ones that differ from the live objects (in dependency order), then compute the status from
 * what is observed ({@code status/}) and patch it only if it changed, with an Event when the phase
 * changes. A reconcile of an unchanged cluster therefore writes nothing.
 *
 * <p>Owned objects carry an owner reference to the DhtCluster, so Kubernetes' garbage collector
 * deletes them with it; there is no finalizer (deleting a cluster never waits for the operator).
 */
@ControllerConfiguration(name = DhtClusterReconciler.NAME, fieldManager = ResourceApplier.FIELD_MANAGER)
public class DhtClusterReconciler implements Reconciler<DhtCluster> {
  private static final Logger log = LoggerFactory.getLogger(DhtClusterReconciler.class);
  public static final String NAME = "dhtcluster";
  /** Kinds the operator owns, each watched by one informer limited to the operator's objects. */
  static final List<Class<? extends HasMetadata>> OWNED = List.of(ServiceAccount.class, ConfigMap.class,
      Service.class, PodDisruptionBudget.class, StatefulSet.class);

  private final Platform platform;
  private final Clock clock;
  private final WriteMetrics metrics;
  private final Map<Class<?>, InformerEventSource<?, ?>> caches = new LinkedHashMap<>();

  public DhtClusterReconciler(Platform platform, Clock clock, WriteMetrics metrics) {
    this.platform = platform;
    this.clock = clock;
    this.metrics = metrics;
  }

  @Override
  public List<EventSource<?, DhtCluster>> prepareEventSources(EventSourceContext<DhtCluster> context) {
    caches.clear();
    for (var kind : OWNED) {
      // Default mapping: the owner reference to the DhtCluster.
      var config = InformerEventSourceConfiguration.from(kind, DhtCluster.class)
          .withLabelSelector(Labels.MANAGED_SELECTOR)
          .build();
      caches.put(kind, new InformerEventSource<>(config, context));
    }
    // Pods belong to the StatefulSet, not to the DhtCluster: map them by their instance label.
    var pods = InformerEventSourceConfiguration.from(Pod.class, DhtCluster.class)
        .withLabelSelector(Labels.MANAGED_SELECTOR)
        .withSecondaryToPrimaryMapper((Pod pod) -> {
          var instance = pod.getMetadata().getLabels().get(Labels.INSTANCE);
          return instance == null ? Set.of() : Set.of(new ResourceID(instance, pod.getMetadata().getNamespace()));
        })
        .build();
    caches.put(Pod.class, new InformerEventSource<>(pods, context));
    var sources = new java.util.ArrayList<EventSource<?, DhtCluster>>();
    caches.values().forEach(s -> sources.add(asSource(s)));
    return sources;
  }

  @Override
  public UpdateControl<DhtCluster> reconcile(DhtCluster cluster, Context<DhtCluster> context) {
    var model = ClusterModel.from(cluster, platform);
    String name = model.name();
    var previous = Optional.ofNullable(cluster.getStatus());
    long topologyVersion = Topology.version(model.memberUrls(),
        live(context, ConfigMap.class, Names.topologyConfigMap(name)),
        previous.map(s -> s.topologyVersion));
    var desired = DesiredState.of(cluster, model, topologyVersion);

    var applier = new ResourceApplier(context.getClient(), caches, metrics);
    StatefulSet statefulSet = null;
    for (HasMetadata object : desired.inApplyOrder()) { // the order DesiredStateTest checks: pods come last
      if (apply(applier, context, object) instanceof StatefulSet applied) {
        statefulSet = applied;
      }
    }

    var now = clock.instant();
    var status = StatusCalculator.compute(cluster, desired, Optional.ofNullable(statefulSet),
        context.getSecondaryResources(Pod.class), now);
    writeStatus(cluster, status, now, context);
    metrics.reconciled("success");
    return UpdateControl.noUpdate(); // the status is written already
  }

  @Override
  public ErrorStatusUpdateControl<DhtCluster> updateErrorStatus(DhtCluster cluster, Context<DhtCluster> context,
      Exception e) {
    metrics.reconciled("failure");
    var now = clock.instant();
    var status = StatusCalculator.failed(cluster, describe(e), now);
    try {
      writeStatus(cluster, status, now, context);
    } catch (KubernetesClientException writeFailed) {
      log.warn("could not write the Failed status of {}/{}: {}", cluster.getMetadata().getNamespace(),
          cluster.getMetadata().getName(), writeFailed.getMessage());
    }
    var control = ErrorStatusUpdateControl.<DhtCluster>noStatusUpdate();
    // A spec the operator cannot use will not get better by retrying; a spec change triggers a new reconcile.
    return e instanceof InvalidSpecException ? control.withNoRetry() : control;
  }

  /**
   * Writes a changed status (server-side apply of only what the operator owns) and returns once the informer cache
   * holds it, then records the phase change as an Event. JOSDK does not cache a status it patched itself: a
   * reconcile triggered meanwhile (a pod or StatefulSet event) would compare against the old phase and report the
   * same transition twice.
   */
  private void writeStatus(DhtCluster cluster, DhtClusterStatus status, Instant now, Context<DhtCluster> context) {
    if (status.equals(cluster.getStatus())) {
      return;
    }
    metrics.write(DhtCluster.KIND + "/status");
    var fresh = new DhtCluster();
    fresh.getMetadata().setName(cluster.getMetadata().getName());
    fresh.getMetadata().setNamespace(cluster.getMetadata().getNamespace());
    fresh.setStatus(status);
    PrimaryUpdateAndCacheUtils.ssaPatchStatusAndCacheResource(cluster, fresh, context);
    new ClusterEvents(context.getClient(), metrics).onTransition(cluster, status, now);
  }

  @SuppressWarnings("unchecked")
  private static EventSource<?, DhtCluster> asSource(InformerEventSource<?, ?> source) {
    return (EventSource<?, DhtCluster>) (EventSource<?, ?>) source;
  }

  @SuppressWarnings("unchecked")
  private static <R extends HasMetadata> R apply(ResourceApplier applier, Context<DhtCluster> context, R desired) {
    var kind = (Class<R>) desired.getClass();
    return applier.apply(desired, live(context, kind, desired.getMetadata().getName()));
  }

  private static <R> Optional<R> live(Context<DhtCluster> context, Class<R> kind, String name) {
    return context.getSecondaryResources(kind).stream()
        .filter(r -> name.equals(((HasMetadata) r).getMetadata().getName()))
        .findFirst();
  }

  static String describe(Exception e) {
    if (e instanceof KubernetesClientException k && k.getStatus() != null && k.getStatus().getMessage() != null) {
      return "the API server refused a write (" + k.getCode() + "): " + k.getStatus().getMessage();
    }
    return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
  }
}
