package dev.dht.node.objectstore;

import dev.dht.node.io.Throttle;
import java.io.IOException;
import java.io.InputStream;
import java.time.Instant;
import java.util.List;

/**
 * What backups and restores need of an S3-compatible object store, by path under the configured prefix
 * ({@link S3Location}): objects put, read, listed, probed and deleted, and uploaded in parts. One implementation,
 * {@link S3ObjectStore} on the AWS SDK; the tests run it against a real server (versitygw). Failures are
 * {@link ObjectStoreException}s that say what the store answered.
 */
public interface ObjectStore extends AutoCloseable {
    /** One listed object. */
    record ObjectInfo(String path, long size, Instant lastModified) {}

    /** A part of a multipart upload the store holds. */
    record Part(int number, String etag, long size) {}

    /** A multipart upload in progress (started, neither completed nor aborted). */
    record Upload(String path, String uploadId, Instant initiated) {}

    /** Opens a fresh stream of an upload's bytes (again on a retry: every attempt reads from the start). */
    @FunctionalInterface
    interface IoSupplier {
        InputStream open() throws IOException;
    }

    S3Location location();

    /**
     * One LIST of at most one key under the prefix: the store answers, the bucket is there, the credentials are
     * taken (and allow listing, which retention needs).
     *
     * @throws ObjectStoreException saying which of these failed
     */
    void probe();

    /** Creates the bucket unless it exists (tests, the local cluster's store). */
    void ensureBucket();

    /** Size of the object at path, or -1 if there is none. */
    long size(String path);

    default boolean exists(String path) {
        return size(path) >= 0;
    }

    /** A small object from memory (manifests). */
    void put(String path, byte[] content);

    /**
     * A streamed object of exactly {@code length} bytes in one request, read at most at the throttle's rate;
     * {@code open} is called again for a retry.
     */
    void put(String path, long length, IoSupplier open, Throttle throttle);

    /** A small object into memory; null if there is none. */
    byte[] get(String path);

    /** Streams an object (the caller closes the stream); an ObjectStoreException with status 404 if there is none. */
    InputStream open(String path);

    /** Every object whose path starts with pathPrefix, in key order (all pages). */
    List<ObjectInfo> list(String pathPrefix);

    /** Deletes the object; deleting one that is not there is no error. */
    void delete(String path);

    /** Starts a multipart upload of path; returns its upload id. */
    String startUpload(String path);

    /** Uploads part {@code number} (from 1) of exactly {@code length} bytes; returns its ETag. */
    String putPart(String path, String uploadId, int number, long length, IoSupplier open, Throttle throttle);

    /**
     * The parts the store holds for an upload, by number.
     *
     * @throws ObjectStoreException with code {@code NoSuchUpload} when the upload is gone (completed, aborted, or
     *                              expired by a lifecycle rule)
     */
    List<Part> parts(String path, String uploadId);

    /** Makes the object of the given parts, in order. */
    void completeUpload(String path, String uploadId, List<Part> parts);

    /** Aborts an upload and frees its parts; one that is gone already is no error. */
    void abortUpload(String path, String uploadId);

    /** The uploads in progress whose path starts with pathPrefix. */
    List<Upload> uploads(String pathPrefix);

    @Override
    void close();
}
