package dev.dht.node.api;

import dev.dht.node.http.AdminCalls;
import dev.dht.node.http.AdminHandler;
import dev.dht.node.http.BadRequestException;
import dev.dht.node.http.Responses;
import dev.dht.node.json.Json;
import dev.dht.node.release.FeatureLevel;
import java.io.IOException;
import java.util.Map;

/**
 * {@code GET /v0/admin/feature-level}: this member's release, feature level and the highest it knows (open, as
 * other status endpoints). {@code POST} with {@code {"level": N}} raises it (admin: a loopback peer or an admin
 * token); the operator does it on every member once every member runs the new release (docs/upgrading.md).
 */
public final class FeatureLevelEndpoint {
    public static final String PATH = "/v0/admin/feature-level";

    private FeatureLevelEndpoint() {}

    public static Map<String, AdminHandler> handlers(FeatureLevel level) {
        return Map.of(
                PATH,
                AdminCalls.handler(
                        (request, responder) ->
                                responder.send(Responses.json(Responses.OK, Json.write(level.report()))),
                        (request, responder) -> {
                            long to = AdminCalls.number(AdminCalls.body(request), "level", null);
                            try {
                                level.raise((int) Math.min(Integer.MAX_VALUE, Math.max(Integer.MIN_VALUE, to)));
                            } catch (IllegalArgumentException e) {
                                throw new BadRequestException(e.getMessage());
                            } catch (IOException e) {
                                responder.send(Responses.json(
                                        Responses.INTERNAL_ERROR,
                                        Json.write(Map.of(
                                                "error", "cannot record the feature level: " + e.getMessage()))));
                                return;
                            }
                            responder.send(Responses.json(Responses.OK, Json.write(level.report())));
                        }));
    }
}
