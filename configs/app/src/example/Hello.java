package example;

/** A tiny application for configs/app.yaml: prints its arguments and exits. */
public class Hello {
    public static void main(String[] args) {
        System.out.println("example.Hello: main ran with " + String.join(" ", args));
    }
}
