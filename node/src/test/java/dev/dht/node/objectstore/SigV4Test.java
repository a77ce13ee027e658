package dev.dht.node.objectstore;

import org.junit.jupiter.api.Test;

import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.LinkedHashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class SigV4Test {
    /** AWS's published example "GET Bucket (List Objects)" of Signature Version 4 for S3 (header form). */
    @Test
    void signsAwsPublishedListObjectsExample() {
        Map<String, String> query = new LinkedHashMap<>();
        query.put("max-keys", "2");
        query.put("prefix", "J");
        Map<String, String> headers = SigV4.sign("GET", "examplebucket.s3.amazonaws.com", "/", query,
                SigV4.EMPTY_SHA256, new Credentials("AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
                "us-east-1", ZonedDateTime.of(2013, 5, 24, 0, 0, 0, 0, ZoneOffset.UTC));
        assertThat(headers.get("Authorization")).isEqualTo("AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/"
                + "20130524/us-east-1/s3/aws4_request, SignedHeaders=host;x-amz-content-sha256;x-amz-date, "
                + "Signature=34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7");
        assertThat(headers.get("x-amz-date")).isEqualTo("20130524T000000Z");
    }

    @Test
    void encodesLikeSigV4() {
        assertThat(SigV4.encode("a b/c~d+e", false)).isEqualTo("a%20b/c~d%2Be");
        assertThat(SigV4.encode("a/b", true)).isEqualTo("a%2Fb");
        assertThat(SigV4.canonicalQuery(Map.of("prefix", "x/y", "list-type", "2")))
                .isEqualTo("list-type=2&prefix=x%2Fy");
    }
}
