package example;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/**
 * A small HTTP server for the ready-probe tests and configs/server.yaml (JDK only, no
 * network beyond 127.0.0.1). Options, in any order:
 *
 * <pre>
 *   --port N          listen on 127.0.0.1:N (required)
 *   --delay-ms D      wait D ms after main() before listening
 *   --never-ready     never listen (a probe that never succeeds)
 *   --ignore-term     on SIGTERM, keep running (a shutdown hook that never returns):
 *                     only SIGKILL stops it
 * </pre>
 *
 * Prints "Server ready on port N" once it listens. GET / answers "hello"; GET /work
 * allocates 64 MiB in 1 MiB arrays and answers their checksum: heap pages the JVM
 * touches for the first time, unless pretouch touched them at startup.
 */
public class Server {
    public static void main(String[] args) throws Exception {
        int port = -1;
        long delayMs = 0;
        boolean neverReady = false;
        boolean ignoreTerm = false;
        for (int i = 0; i < args.length; i++) {
            // Classic switch: the sources compile for JDK 11 (see app_build::RELEASE).
            switch (args[i]) {
                case "--port":
                    port = Integer.parseInt(args[++i]);
                    break;
                case "--delay-ms":
                    delayMs = Long.parseLong(args[++i]);
                    break;
                case "--never-ready":
                    neverReady = true;
                    break;
                case "--ignore-term":
                    ignoreTerm = true;
                    break;
                default:
                    throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        if (port < 0) {
            throw new IllegalArgumentException("--port N is required");
        }
        if (ignoreTerm) {
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                while (true) {
                    try {
                        Thread.sleep(60_000);
                    } catch (InterruptedException e) {
                        // Keep ignoring.
                    }
                }
            }));
        }
        Thread.sleep(delayMs);
        if (neverReady) {
            System.out.println("Server never listens");
            Thread.sleep(Long.MAX_VALUE);
        }
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 50);
        server.createContext("/", exchange -> answer(exchange, "hello\n"));
        server.createContext("/work", exchange -> answer(exchange, work() + "\n"));
        server.start();
        System.out.println("Server ready on port " + port);
    }

    private static long work() {
        long sum = 0;
        for (int i = 0; i < 64; i++) {
            byte[] chunk = new byte[1 << 20];
            for (int j = 0; j < chunk.length; j += 4096) {
                chunk[j] = (byte) (i + j);
            }
            sum += chunk[i * 4096 % chunk.length];
        }
        return sum;
    }

    private static void answer(com.sun.net.httpserver.HttpExchange exchange, String body)
            throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(200, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }
}
