package dev.dht.node.support;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.Collections;

/** Addresses of this machine for tests of what a node grants to loopback peers only. */
public final class Addresses {
    private Addresses() {}

    /**
     * An IPv4 address of this machine that is not loopback: a connection to it comes from it too, so the node
     * sees a remote peer. A machine without one skips the test (reported as skipped, never as passed).
     */
    public static InetAddress external() {
        try {
            for (NetworkInterface nif : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                if (!nif.isUp() || nif.isLoopback()) {
                    continue;
                }
                for (InetAddress a : Collections.list(nif.getInetAddresses())) {
                    if (a instanceof Inet4Address && !a.isLoopbackAddress() && !a.isLinkLocalAddress()) {
                        return a;
                    }
                }
            }
        } catch (SocketException e) {
            throw new AssertionError(e);
        }
        assumeTrue(false, "this machine has no non-loopback IPv4 address to connect from");
        return null;
    }
}
