package dev.dht.operator.model;

import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.PodSecurityContextBuilder;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.SecurityContextBuilder;

/**
 * The security contexts of the pods the operator makes (the members with their profiler sidecar, the benchmark Jobs):
 * what the "restricted" Pod Security Standard asks, in one place.
 */
public final class PodSecurity {
    private PodSecurity() {}

    /**
     * The pod's: non-root as the image's numeric {@code userId} (runAsNonRoot needs a number to verify), its group
     * owning the volumes (fsGroup, changed only where the root does not match), the runtime's default seccomp profile.
     */
    public static PodSecurityContext pod(long userId) {
        return new PodSecurityContextBuilder()
                .withRunAsNonRoot(true)
                .withRunAsUser(userId)
                .withRunAsGroup(userId)
                .withFsGroup(userId)
                .withFsGroupChangePolicy("OnRootMismatch")
                .withNewSeccompProfile()
                .withType("RuntimeDefault")
                .endSeccompProfile()
                .build();
    }

    /** A container's: no privilege escalation, a read-only root filesystem, non-root, no capabilities. */
    public static SecurityContext container() {
        return new SecurityContextBuilder()
                .withAllowPrivilegeEscalation(false)
                .withReadOnlyRootFilesystem(true)
                .withRunAsNonRoot(true)
                .withNewCapabilities()
                .withDrop("ALL")
                .endCapabilities()
                .build();
    }
}
