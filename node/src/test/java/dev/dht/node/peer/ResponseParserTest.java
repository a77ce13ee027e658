package dev.dht.node.peer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ResponseParserTest {
    private static final String TWO = "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nX-Dht-Clock: 42\r\n\r\nabc"
            + "HTTP/1.1 409 Conflict\r\ncontent-length: 0\r\nx-dht-timestamp: 7\r\nx-dht-clock:  43 \r\n\r\n";

    /** Feeds the bytes in pieces of the given size, as a socket might deliver them. */
    private static List<PeerResponse> feed(String text, int piece) throws IOException {
        byte[] all = text.getBytes(StandardCharsets.ISO_8859_1);
        ResponseParser parser = new ResponseParser();
        ByteBuffer in = ByteBuffer.allocate(1024);
        List<PeerResponse> out = new ArrayList<>();
        for (int i = 0; i < all.length; i += piece) {
            in.put(all, i, Math.min(piece, all.length - i));
            in.flip();
            for (PeerResponse r; in.hasRemaining() && (r = parser.parse(in)) != null; ) {
                out.add(r);
            }
            // a complete response with an empty body may wait for the next bytes: drain it too
            in.compact();
        }
        in.flip();
        for (PeerResponse r; (r = parser.parse(in)) != null; ) {
            out.add(r);
            if (!in.hasRemaining()) {
                break;
            }
        }
        return out;
    }

    @Test
    void pipelinedAnswersComeOutWholeWhateverTheFragmentation() throws IOException {
        for (int piece : new int[] {1, 2, 3, 7, 16, 1000}) {
            List<PeerResponse> rs = feed(TWO, piece);
            assertThat(rs).as("piece %d", piece).hasSize(2);
            assertThat(rs.get(0).status()).isEqualTo(200);
            assertThat(rs.get(0).clock()).isEqualTo(42);
            assertThat(new String(rs.get(0).body(), StandardCharsets.US_ASCII)).isEqualTo("abc");
            assertThat(rs.get(1).status()).isEqualTo(409);
            assertThat(rs.get(1).timestamp()).isEqualTo(7);
            assertThat(rs.get(1).clock()).isEqualTo(43);
            assertThat(rs.get(1).body()).isEmpty();
        }
    }

    @Test
    void answersWithoutLengthOrWithGarbageAreErrors() {
        assertThatThrownBy(() -> feed("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", 100))
                .isInstanceOf(IOException.class);
        assertThatThrownBy(() -> feed("HTTP/1.1 200 OK\r\nX: y\r\n\r\n", 100)).isInstanceOf(IOException.class);
        assertThatThrownBy(() -> feed("SSH-2.0-OpenSSH_9\r\n\r\n", 100)).isInstanceOf(IOException.class);
        assertThatThrownBy(() -> feed("HTTP/1.1 200 OK\r\nContent-Length: 1x\r\n\r\n", 100))
                .isInstanceOf(IOException.class);
    }
}
