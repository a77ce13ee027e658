package dev.dht.operator.model;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.fabric8.kubernetes.api.model.HasMetadata;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;

/**
 * Content hashes. The operator compares the hash of a desired object with the one stamped on the
 * live object instead of diffing fields: the API server adds defaults and normalises values
 * (quantities, volumeClaimTemplates' status), which makes field-by-field comparison of a
 * StatefulSet report false differences and re-apply on every reconcile.
 */
public final class Hashing {
    // Map entries sorted by key, so equal content gives equal JSON whatever the insertion order.
    private static final ObjectMapper CANONICAL =
            new ObjectMapper().configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true);

    private Hashing() {}

    public static String sha256(String text) {
        try {
            var digest = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 10);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }

    public static String ofJson(Object value) {
        try {
            return sha256(CANONICAL.writeValueAsString(value));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(
                    "cannot serialise " + value.getClass().getSimpleName(), e);
        }
    }

    /** Puts the hash of the object's content (without any previous stamp) into its annotations. */
    public static <R extends HasMetadata> R stamp(R resource) {
        var meta = resource.getMetadata();
        var annotations = meta.getAnnotations() == null
                ? new LinkedHashMap<String, String>()
                : new LinkedHashMap<>(meta.getAnnotations());
        annotations.remove(Labels.DESIRED_HASH);
        meta.setAnnotations(annotations.isEmpty() ? null : annotations);
        String hash = ofJson(resource);
        annotations.put(Labels.DESIRED_HASH, hash);
        meta.setAnnotations(annotations);
        return resource;
    }

    public static String stampOf(HasMetadata resource) {
        var annotations = resource.getMetadata().getAnnotations();
        return annotations == null ? null : annotations.get(Labels.DESIRED_HASH);
    }
}
