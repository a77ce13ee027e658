package dev.dht.operator.security;

import io.fabric8.kubernetes.api.model.Secret;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/** A Secret's values as text, and Secret data from text (the API keeps base64). */
public final class SecretData {
    private SecretData() {}

    public static Optional<String> text(Secret secret, String key) {
        if (secret == null) {
            return Optional.empty();
        }
        if (secret.getData() != null && secret.getData().get(key) != null) {
            try {
                return Optional.of(new String(
                        Base64.getDecoder().decode(secret.getData().get(key).trim()), StandardCharsets.UTF_8));
            } catch (IllegalArgumentException e) {
                return Optional.empty();
            }
        }
        // An object written with stringData and not yet read back from the API server.
        return secret.getStringData() != null
                ? Optional.ofNullable(secret.getStringData().get(key))
                : Optional.empty();
    }

    /** Every key's text (keys whose value is not base64 are left out). */
    public static Map<String, String> texts(Secret secret) {
        var out = new LinkedHashMap<String, String>();
        if (secret != null && secret.getData() != null) {
            secret.getData().keySet().stream()
                    .sorted()
                    .forEach(k -> text(secret, k).ifPresent(v -> out.put(k, v)));
        }
        if (secret != null && secret.getStringData() != null) {
            secret.getStringData().forEach(out::putIfAbsent);
        }
        return out;
    }

    public static Map<String, String> encode(Map<String, String> texts) {
        var out = new LinkedHashMap<String, String>();
        texts.forEach((k, v) -> out.put(k, Base64.getEncoder().encodeToString(v.getBytes(StandardCharsets.UTF_8))));
        return out;
    }

    public static String annotation(Secret secret, String key) {
        var annotations = secret == null ? null : secret.getMetadata().getAnnotations();
        return annotations == null ? "" : annotations.getOrDefault(key, "");
    }
}
