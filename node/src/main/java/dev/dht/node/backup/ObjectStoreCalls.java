package dev.dht.node.backup;

import dev.dht.node.http.AdminCalls;
import dev.dht.node.http.Responses;
import dev.dht.node.objectstore.ObjectStoreException;

/** The answers every admin call that needs the object store shares (backups, restores). */
public final class ObjectStoreCalls {
    private ObjectStoreCalls() {}

    /**
     * The call, or 409 when no object store is configured (the message names the flags that configure one); what
     * the call refuses: 409 (a {@link BackupAgent.Conflict}), 400 (bad input), 503 (the store does not answer).
     *
     * @param flags the start-up flags the call needs, as the message names them
     */
    public static AdminCalls.Call guarded(boolean configured, String flags, AdminCalls.Call call) {
        return (request, responder) -> {
            if (!configured) {
                AdminCalls.error(
                        responder,
                        Responses.CONFLICT,
                        "no object store is configured on this node: start it with " + flags);
                return;
            }
            try {
                call.handle(request, responder);
            } catch (BackupAgent.Conflict e) {
                AdminCalls.error(responder, Responses.CONFLICT, e.getMessage());
            } catch (IllegalArgumentException e) {
                AdminCalls.error(responder, Responses.BAD_REQUEST, e.getMessage());
            } catch (ObjectStoreException e) {
                AdminCalls.error(responder, Responses.SERVICE_UNAVAILABLE, "object store: " + e.getMessage());
            }
        };
    }
}
