//! The names translation knows: JMeter's script bindings (kept as they are, the runtime
//! defines them), the library classes that [`crate::script::shims`] replaces, Java's
//! primitive types, and the words Rhai reserves (a user's variable with such a name is
//! renamed).

/// Variables JMeter puts in a script's scope (JSR223 and BeanShell elements).
pub const BINDINGS: &[&str] = &[
    "vars",
    "props",
    "log",
    "ctx",
    "prev",
    "sampler",
    "SampleResult",
    "AssertionResult",
    "Label",
    "FileName",
    "Parameters",
    "args",
    "OUT",
    "IsSuccess",
    "ResponseCode",
    "ResponseMessage",
    "ResponseHeaders",
    "RequestHeaders",
    "Response",
    "ResponseData",
    "Failure",
    "FailureMessage",
    "SampleLabel",
    "data",
    "sampleEvent",
    "bsh",
];

/// Library classes with a shim module (`Integer::parseInt`), by their simple name.
pub const STATIC_CLASSES: &[&str] = &[
    "Integer",
    "Long",
    "Double",
    "Float",
    "Short",
    "Boolean",
    "BigDecimal",
    "BigInteger",
    "Math",
    "System",
    "String",
    "UUID",
    "Thread",
    "Base64",
    "MessageDigest",
    "Random",
    "ThreadLocalRandom",
    "RandomStringUtils",
    "StringUtils",
    "Date",
    "SimpleDateFormat",
    "LocalDate",
    "LocalDateTime",
    "LocalTime",
    "ZonedDateTime",
    "Instant",
    "DateTimeFormatter",
    "ChronoUnit",
    "TimeUnit",
    "Duration",
    "JsonSlurper",
    "JsonOutput",
    "JsonBuilder",
    "StringBuilder",
    "StringBuffer",
    "File",
    "FileWriter",
    "FileReader",
    "BufferedReader",
    "BufferedWriter",
    "PrintWriter",
    "FileOutputStream",
    "Files",
    "Paths",
    "Path",
    "StandardCharsets",
    "ArrayList",
    "LinkedList",
    "HashMap",
    "LinkedHashMap",
    "TreeMap",
    "HashSet",
    "LinkedHashSet",
    "TreeSet",
    "Arrays",
    "Collections",
    "Pattern",
    "URLEncoder",
    "URLDecoder",
    "DigestUtils",
    "Mac",
    "SecretKeySpec",
    "Hex",
    "HmacUtils",
    "HmacAlgorithms",
    "KeyFactory",
    "PKCS8EncodedKeySpec",
    "Signature",
    "Jwts",
    "Keys",
    "SignatureAlgorithm",
    "Decoders",
    "AtomicLong",
    "AtomicInteger",
    "ByteString",
    "Protobuf",
    "Crypto",
    "Jwt",
    "JMeterUtils",
    "Character",
    "Objects",
];

/// Collections created by `new X()`: they become Rhai arrays and maps.
pub const LIST_CLASSES: &[&str] = &[
    "ArrayList",
    "LinkedList",
    "Vector",
    "HashSet",
    "LinkedHashSet",
    "TreeSet",
    "CopyOnWriteArrayList",
];
pub const MAP_CLASSES: &[&str] = &[
    "HashMap",
    "LinkedHashMap",
    "TreeMap",
    "ConcurrentHashMap",
    "Hashtable",
    "Properties",
];

pub const PRIMITIVES: &[&str] = &[
    "int", "long", "short", "byte", "double", "float", "boolean", "char", "void",
];

/// Words that introduce a declaration when they start a statement.
pub const DECLARATION_WORDS: &[&str] = &["def", "var", "let", "const", "final"];

/// Words Rhai reserves or defines as keywords; a script variable with one of these
/// names gets a trailing underscore.
pub const RHAI_RESERVED: &[&str] = &[
    "fn",
    "let",
    "const",
    "is",
    "in",
    "loop",
    "switch",
    "private",
    "import",
    "export",
    "as",
    "global",
    "this",
    "print",
    "debug",
    "type_of",
    "eval",
    "Fn",
    "call",
    "curry",
    "is_def_var",
    "is_def_fn",
    "is_shared",
    "var",
    "static",
    "shared",
    "goto",
    "exit",
    "match",
    "case",
    "public",
    "protected",
    "new",
    "use",
    "with",
    "module",
    "package",
    "super",
    "spawn",
    "thread",
    "go",
    "sync",
    "async",
    "await",
    "yield",
    "default",
    "void",
    "null",
    "nil",
    "try",
    "catch",
    "throw",
    "return",
    "break",
    "continue",
    "do",
    "until",
    "while",
    "for",
    "if",
    "else",
    "true",
    "false",
];

/// Exceptions thrown with `throw new X(message)`: the message becomes the thrown value.
pub fn is_exception_class(name: &str) -> bool {
    name.ends_with("Exception") || name.ends_with("Error") || name == "Throwable"
}

/// Whether `name` looks like a class (Java convention: capitalised).
pub fn looks_like_class(name: &str) -> bool {
    name.chars().next().is_some_and(|c| c.is_ascii_uppercase())
        && name.chars().any(|c| c.is_ascii_lowercase())
}

pub fn is_binding(name: &str) -> bool {
    BINDINGS.contains(&name)
}

/// The name a script identifier gets in Rhai.
pub fn rhai_name(name: &str) -> String {
    let mut out = name.replace('$', "_");
    if out.chars().all(|c| c == '_') {
        // Groovy's `_` for an unused parameter; Rhai names need a letter.
        return format!("unused{out}");
    }
    if RHAI_RESERVED.contains(&out.as_str()) {
        out.push('_');
    }
    out
}
