//! The tiny Java classes the runner launches, emitted as class-file bytes so that a run
//! needs no `javac` (a JRE is enough) and the bytecode is the same on every JDK.
//!
//! Class-file version 49 (Java 5) needs no StackMapTable and loads on every JDK since.

/// The built-in main class: `static native void mark(); main(String[]) { mark(); }`.
/// `mark` resolves to `Java_PretouchMain_mark` in the agent library.
pub const MAIN_CLASS: &str = "PretouchMain";

/// Agent-free reference: `main(String[]) { System.out.println(System.nanoTime()); }`.
pub const NANOTIME_CLASS: &str = "PretouchNanoTime";

pub fn main_class() -> Vec<u8> {
    let mut cp = ConstantPool::default();
    let mark = cp.method_ref(MAIN_CLASS, "mark", "()V");
    let code = [vec![0xb8], mark.to_be_bytes().to_vec(), vec![0xb1]].concat(); // invokestatic; return
    ClassBuilder {
        name: MAIN_CLASS,
        methods: vec![
            Method {
                flags: ACC_STATIC | ACC_NATIVE,
                name: "mark",
                descriptor: "()V",
                code: None,
            },
            Method {
                flags: ACC_PUBLIC | ACC_STATIC,
                name: "main",
                descriptor: "([Ljava/lang/String;)V",
                code: Some(Code {
                    max_stack: 0,
                    max_locals: 1,
                    bytes: code,
                }),
            },
        ],
    }
    .build(cp)
}

pub fn nanotime_class() -> Vec<u8> {
    let mut cp = ConstantPool::default();
    let out = cp.field_ref("java/lang/System", "out", "Ljava/io/PrintStream;");
    let now = cp.method_ref("java/lang/System", "nanoTime", "()J");
    let println = cp.method_ref("java/io/PrintStream", "println", "(J)V");
    let mut code = Vec::new();
    code.push(0xb2); // getstatic System.out
    code.extend(out.to_be_bytes());
    code.push(0xb8); // invokestatic System.nanoTime
    code.extend(now.to_be_bytes());
    code.push(0xb6); // invokevirtual PrintStream.println(long)
    code.extend(println.to_be_bytes());
    code.push(0xb1); // return
    ClassBuilder {
        name: NANOTIME_CLASS,
        methods: vec![Method {
            flags: ACC_PUBLIC | ACC_STATIC,
            name: "main",
            descriptor: "([Ljava/lang/String;)V",
            code: Some(Code {
                max_stack: 3,
                max_locals: 1,
                bytes: code,
            }),
        }],
    }
    .build(cp)
}

const ACC_PUBLIC: u16 = 0x0001;
const ACC_STATIC: u16 = 0x0008;
const ACC_SUPER: u16 = 0x0020;
const ACC_NATIVE: u16 = 0x0100;

/// A constant pool that hands out indexes, sharing equal entries.
#[derive(Default)]
struct ConstantPool {
    entries: Vec<Vec<u8>>,
}

impl ConstantPool {
    fn add(&mut self, entry: Vec<u8>) -> u16 {
        if let Some(i) = self.entries.iter().position(|e| *e == entry) {
            return i as u16 + 1;
        }
        self.entries.push(entry);
        self.entries.len() as u16
    }

    fn utf8(&mut self, s: &str) -> u16 {
        let mut e = vec![1];
        e.extend((s.len() as u16).to_be_bytes());
        e.extend(s.as_bytes());
        self.add(e)
    }

    fn class(&mut self, name: &str) -> u16 {
        let n = self.utf8(name);
        self.add([&[7][..], &n.to_be_bytes()].concat())
    }

    fn member_ref(&mut self, tag: u8, class: &str, name: &str, descriptor: &str) -> u16 {
        let c = self.class(class);
        let (n, d) = (self.utf8(name), self.utf8(descriptor));
        let nat = self.add([&[12][..], &n.to_be_bytes(), &d.to_be_bytes()].concat());
        self.add([&[tag][..], &c.to_be_bytes(), &nat.to_be_bytes()].concat())
    }

    fn field_ref(&mut self, class: &str, name: &str, descriptor: &str) -> u16 {
        self.member_ref(9, class, name, descriptor)
    }

    fn method_ref(&mut self, class: &str, name: &str, descriptor: &str) -> u16 {
        self.member_ref(10, class, name, descriptor)
    }
}

struct Code {
    max_stack: u16,
    max_locals: u16,
    bytes: Vec<u8>,
}

struct Method {
    flags: u16,
    name: &'static str,
    descriptor: &'static str,
    code: Option<Code>,
}

struct ClassBuilder {
    name: &'static str,
    methods: Vec<Method>,
}

impl ClassBuilder {
    fn build(self, mut cp: ConstantPool) -> Vec<u8> {
        let this = cp.class(self.name);
        let sup = cp.class("java/lang/Object");
        let code_attr = cp.utf8("Code");
        let mut methods = Vec::new();
        for m in &self.methods {
            methods.extend(m.flags.to_be_bytes());
            methods.extend(cp.utf8(m.name).to_be_bytes());
            methods.extend(cp.utf8(m.descriptor).to_be_bytes());
            match &m.code {
                None => methods.extend(0u16.to_be_bytes()),
                Some(code) => {
                    methods.extend(1u16.to_be_bytes());
                    methods.extend(code_attr.to_be_bytes());
                    let len = 2 + 2 + 4 + code.bytes.len() + 2 + 2;
                    methods.extend((len as u32).to_be_bytes());
                    methods.extend(code.max_stack.to_be_bytes());
                    methods.extend(code.max_locals.to_be_bytes());
                    methods.extend((code.bytes.len() as u32).to_be_bytes());
                    methods.extend(&code.bytes);
                    methods.extend(0u16.to_be_bytes()); // exception table
                    methods.extend(0u16.to_be_bytes()); // attributes
                }
            }
        }
        let mut out = vec![0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 49];
        out.extend((cp.entries.len() as u16 + 1).to_be_bytes());
        for e in &cp.entries {
            out.extend(e);
        }
        out.extend((ACC_PUBLIC | ACC_SUPER).to_be_bytes());
        out.extend(this.to_be_bytes());
        out.extend(sup.to_be_bytes());
        out.extend(0u16.to_be_bytes()); // interfaces
        out.extend(0u16.to_be_bytes()); // fields
        out.extend((self.methods.len() as u16).to_be_bytes());
        out.extend(methods);
        out.extend(0u16.to_be_bytes()); // attributes
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constant_pool_shares_entries() {
        let mut cp = ConstantPool::default();
        let a = cp.method_ref("A", "m", "()V");
        let b = cp.method_ref("A", "m", "()V");
        assert_eq!(a, b);
        assert_eq!(cp.utf8("A"), 1);
    }

    #[test]
    fn classes_start_like_class_files() {
        for bytes in [main_class(), nanotime_class()] {
            assert_eq!(&bytes[..8], &[0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 49]);
        }
        // `javap`-free check of the layout: the class name is in the pool.
        let main = main_class();
        assert!(
            main.windows(MAIN_CLASS.len())
                .any(|w| w == MAIN_CLASS.as_bytes())
        );
    }
}
