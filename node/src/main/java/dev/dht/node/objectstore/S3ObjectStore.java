package dev.dht.node.objectstore;

import dev.dht.node.io.Throttle;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * {@link ObjectStore} on the AWS SDK for Java v2 ({@code s3}), over the JDK's HttpURLConnection
 * ({@code url-connection-client}: the fewest jars and classes, each call on its caller's thread, so the backup's
 * calls run under its SCHED_IDLE priority; docs/operations.md, "Why this S3 client").
 *
 * <ul>
 *   <li>Credentials: {@link StoreCredentials} (a mounted Secret, or the SDK's default chain).</li>
 *   <li>Region: the configured one, else AWS_REGION or the profile's, else us-east-1; cross-region access is on, so
 *       a bucket in another region is found by S3's redirect.</li>
 *   <li>Checksums only where S3 requires them: the SDK's default CRC trailers (aws-chunked uploads) are refused by
 *       GCS's interoperability API and by several S3-compatible stores, and every restored file is checked against
 *       its content name anyway.</li>
 *   <li>Retries: up to 5 attempts with backoff for no answer, 5xx and throttling (the SDK's standard strategy,
 *       without its retry quota: the node has one rate limiter, {@link Throttle}); every call is idempotent
 *       (objects are named by content or by backup).</li>
 * </ul>
 */
public final class S3ObjectStore implements ObjectStore {
    static final int ATTEMPTS = 5;
    private static final Duration CALL_TIMEOUT = Duration.ofMinutes(2);

    private final S3Location location;
    private final StoreCredentials credentials;
    private final S3Client s3;

    public S3ObjectStore(S3Location location, StoreCredentials credentials) {
        this.location = location;
        this.credentials = credentials;
        this.s3 = S3Client.builder()
                .endpointOverride(location.endpoint())
                .region(Region.of(StoreCredentials.region(location)))
                .crossRegionAccessEnabled(true)
                .forcePathStyle(location.pathStyle())
                .credentialsProvider(credentials.provider())
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                .httpClient(UrlConnectionHttpClient.builder()
                        .connectionTimeout(Duration.ofSeconds(5))
                        .socketTimeout(Duration.ofSeconds(60))
                        .build())
                .overrideConfiguration(o -> o.retryStrategy(AwsRetryStrategy.standardRetryStrategy().toBuilder()
                                .maxAttempts(ATTEMPTS)
                                .circuitBreakerEnabled(false)
                                .build())
                        .apiCallAttemptTimeout(CALL_TIMEOUT))
                .build();
    }

    @Override
    public S3Location location() {
        return location;
    }

    @Override
    public void probe() {
        call(
                "LIST (probe)",
                () -> s3.listObjectsV2(
                        b -> b.bucket(location.bucket()).maxKeys(1).prefix(location.key(""))));
    }

    @Override
    public void ensureBucket() {
        try {
            call("HEAD bucket " + location.bucket(), () -> s3.headBucket(b -> b.bucket(location.bucket())));
        } catch (ObjectStoreException e) {
            if (e.status() != 404) {
                throw e;
            }
            try {
                call("create bucket " + location.bucket(), () -> s3.createBucket(b -> b.bucket(location.bucket())));
            } catch (ObjectStoreException created) {
                if (!"BucketAlreadyOwnedByYou".equals(created.code())) {
                    throw created;
                }
            }
        }
    }

    @Override
    public long size(String path) {
        try {
            return call(
                            "HEAD " + path,
                            () -> s3.headObject(b -> b.bucket(location.bucket()).key(location.key(path))))
                    .contentLength();
        } catch (ObjectStoreException e) {
            if (e.status() == 404) {
                return -1;
            }
            throw e;
        }
    }

    @Override
    public void put(String path, byte[] content) {
        call(
                "PUT " + path,
                () -> s3.putObject(
                        b -> b.bucket(location.bucket()).key(location.key(path)), RequestBody.fromBytes(content)));
    }

    @Override
    public void put(String path, long length, IoSupplier open, Throttle throttle) {
        call(
                "PUT " + path,
                () -> s3.putObject(
                        b -> b.bucket(location.bucket())
                                .key(location.key(path))
                                .overrideConfiguration(o -> o.apiCallAttemptTimeout(timeout(length, throttle))),
                        body(length, open, throttle)));
    }

    @Override
    public byte[] get(String path) {
        try {
            return call(
                            "GET " + path,
                            () -> s3.getObjectAsBytes(
                                    b -> b.bucket(location.bucket()).key(location.key(path))))
                    .asByteArray();
        } catch (ObjectStoreException e) {
            if (e.status() == 404) {
                return null;
            }
            throw e;
        }
    }

    @Override
    public InputStream open(String path) {
        // no attempt timeout: a restore reads the stream at its own pace (the socket timeout catches a stall)
        return call(
                "GET " + path,
                () -> s3.getObject(b -> b.bucket(location.bucket())
                        .key(location.key(path))
                        .overrideConfiguration(o -> o.apiCallAttemptTimeout(Duration.ofDays(1)))));
    }

    @Override
    public List<ObjectInfo> list(String pathPrefix) {
        return call("LIST " + pathPrefix, () -> {
            List<ObjectInfo> out = new ArrayList<>();
            for (S3Object o : s3.listObjectsV2Paginator(
                            b -> b.bucket(location.bucket()).prefix(location.key(pathPrefix)))
                    .contents()) {
                out.add(new ObjectInfo(
                        location.path(o.key()), o.size(), o.lastModified() == null ? Instant.EPOCH : o.lastModified()));
            }
            return out;
        });
    }

    @Override
    public void delete(String path) {
        call(
                "DELETE " + path,
                () -> s3.deleteObject(b -> b.bucket(location.bucket()).key(location.key(path))));
    }

    @Override
    public String startUpload(String path) {
        return call(
                        "start upload " + path,
                        () -> s3.createMultipartUpload(
                                b -> b.bucket(location.bucket()).key(location.key(path))))
                .uploadId();
    }

    @Override
    public String putPart(String path, String uploadId, int number, long length, IoSupplier open, Throttle throttle) {
        return call(
                        "PUT part " + number + " of " + path,
                        () -> s3.uploadPart(
                                b -> b.bucket(location.bucket())
                                        .key(location.key(path))
                                        .uploadId(uploadId)
                                        .partNumber(number)
                                        .contentLength(length)
                                        .overrideConfiguration(o -> o.apiCallAttemptTimeout(timeout(length, throttle))),
                                body(length, open, throttle)))
                .eTag();
    }

    @Override
    public List<Part> parts(String path, String uploadId) {
        return call("LIST parts of " + path, () -> {
            List<Part> out = new ArrayList<>();
            for (var p : s3.listPartsPaginator(b ->
                            b.bucket(location.bucket()).key(location.key(path)).uploadId(uploadId))
                    .parts()) {
                out.add(new Part(p.partNumber(), p.eTag(), p.size()));
            }
            return out;
        });
    }

    @Override
    public void completeUpload(String path, String uploadId, List<Part> parts) {
        List<CompletedPart> done = parts.stream()
                .map(p -> CompletedPart.builder()
                        .partNumber(p.number())
                        .eTag(p.etag())
                        .build())
                .toList();
        call(
                "complete upload " + path,
                () -> s3.completeMultipartUpload(b -> b.bucket(location.bucket())
                        .key(location.key(path))
                        .uploadId(uploadId)
                        .multipartUpload(m -> m.parts(done))));
    }

    @Override
    public void abortUpload(String path, String uploadId) {
        try {
            call(
                    "abort upload " + path,
                    () -> s3.abortMultipartUpload(b ->
                            b.bucket(location.bucket()).key(location.key(path)).uploadId(uploadId)));
        } catch (ObjectStoreException e) {
            if (e.status() != 404) {
                throw e;
            }
        }
    }

    @Override
    public List<Upload> uploads(String pathPrefix) {
        return call("LIST uploads " + pathPrefix, () -> {
            List<Upload> out = new ArrayList<>();
            for (var u : s3.listMultipartUploadsPaginator(
                            b -> b.bucket(location.bucket()).prefix(location.key(pathPrefix)))
                    .uploads()) {
                out.add(new Upload(
                        location.path(u.key()), u.uploadId(), u.initiated() == null ? Instant.EPOCH : u.initiated()));
            }
            return out;
        });
    }

    @Override
    public void close() {
        s3.close();
    }

    // ---- plumbing ------------------------------------------------------------------------------------------

    /** A streamed upload's attempt may take twice as long as the throttle allows it, plus a minute. */
    private static Duration timeout(long length, Throttle throttle) {
        long rate = throttle == null ? 0 : throttle.bytesPerSecond();
        return Duration.ofSeconds(60 + (rate > 0 ? 2 * length / rate : length >> 22));
    }

    private static RequestBody body(long length, IoSupplier open, Throttle throttle) {
        if (length == 0) {
            return RequestBody.empty();
        }
        return RequestBody.fromContentProvider(
                () -> {
                    try {
                        return throttle == null ? open.open() : throttle.paced(open.open());
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                },
                length,
                "application/octet-stream");
    }

    private <T> T call(String what, Supplier<T> call) {
        try {
            return call.get();
        } catch (SdkException | UncheckedIOException e) {
            throw StoreErrors.of(what, location, credentials, e);
        }
    }
}
