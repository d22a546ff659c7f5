//! The client keystore: the certificates and keys HTTPS connections present when a
//! server asks for one (mutual TLS), as JMeter's `SSLManager` / `JmeterKeyStore` keep
//! them.
//!
//! JMeter reads the keystore JSSE is told about with the Java system properties
//! [`KEY_STORE`], [`KEY_STORE_PASSWORD`] and [`KEY_STORE_TYPE`]; jmxr takes them from
//! `-D` and `-S` the same way. When the run starts, [`install`] evaluates the plan's
//! Keystore Configuration (`plan::config::keystore`) and puts a [`RunKeystore`] in the
//! run's shared state; the file is read then when the element says `preload` (a
//! keystore that cannot be read refuses the run), else by the first HTTPS connection
//! (a keystore that cannot be read fails the samples that need it). The entries are
//! narrowed to an index range; a variable may name the alias each user presents;
//! without one the entries are handed out in turn across all users (JMeter's one
//! `JmeterKeyStore` counter), each user keeping the entry it took until it starts as a
//! new user.
//!
//! Formats: PKCS#12 (`.p12`/`.pfx`, what `keytool` and `openssl pkcs12 -export` write),
//! its key entries in file order with lower-case aliases as Java lists them
//! (`pkcs12_order`); PEM, jmxr's addition, with each private key followed by its
//! certificate chain (the entries are named `1`, `2`... in file order); a Java KeyStore
//! (JKS/JCEKS) is refused with the `keytool` command that converts it.
//!
//! Each key entry gets its own rustls client configurations (one per certificate
//! checking mode and ALPN offer), made on first use and kept, so TLS sessions resume per
//! entry as JSSE's do.

mod pkcs12_order;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use parking_lot::Mutex;
use rustls::pki_types::pem::{PemObject, SectionKind};
use rustls::pki_types::{
    CertificateDer, PrivateKeyDer, PrivatePkcs1KeyDer, PrivatePkcs8KeyDer, PrivateSec1KeyDer,
};
use rustls::ClientConfig;

use super::client::TransportError;
use super::tls;
use crate::plan::config::keystore::KeystoreSettings;
use crate::plan::TestPlan;
use crate::runlog;
use crate::user_state::{RunShared, ThreadInfo, Variables};

/// The keystore file.
pub const KEY_STORE: &str = "javax.net.ssl.keyStore";
/// Its password (also the keys' password, as JSSE's default key manager assumes).
pub const KEY_STORE_PASSWORD: &str = "javax.net.ssl.keyStorePassword";
/// `pkcs12`, `PEM`, or `JKS`; without it the file's content decides.
pub const KEY_STORE_TYPE: &str = "javax.net.ssl.keyStoreType";

/// Where the run's keystore sits in the run's shared state.
const SHARED_KEY: &str = "http.client_keystore";

/// One key entry: its alias, certificate chain (end entity first) and private key.
pub struct ClientKey {
    pub alias: String,
    chain: Vec<CertificateDer<'static>>,
    key: PrivateKeyDer<'static>,
}

/// The run's client keystore: where it comes from, the Keystore Configuration's
/// choices, and once read, its entries or why it could not be read.
pub struct RunKeystore {
    file: PathBuf,
    /// `None` when [`KEY_STORE_PASSWORD`] is not set (JMeter would prompt in its GUI).
    password: Option<String>,
    kind: Option<String>,
    settings: KeystoreSettings,
    /// Read once, at the start (`preload`) or by the first connection that needs it;
    /// a failure is kept too, as JMeter keeps its half-made keystore.
    loaded: OnceLock<Result<Arc<ClientKeystore>, String>>,
}

impl RunKeystore {
    /// The entries, reading the file if nobody has yet.
    pub fn loaded(&self) -> Result<&Arc<ClientKeystore>, &str> {
        self.loaded
            .get_or_init(|| {
                load(
                    &self.file,
                    self.password.as_deref(),
                    self.kind.as_deref(),
                    &self.settings,
                )
                .map(Arc::new)
            })
            .as_ref()
            .map_err(String::as_str)
    }

    /// The variable naming each user's alias, if the Keystore Configuration set one.
    pub fn alias_variable(&self) -> Option<&str> {
        let name = self.settings.alias_variable.as_str();
        (!name.is_empty()).then_some(name)
    }
}

/// The key entries a run may present, and how a connection picks one.
pub struct ClientKeystore {
    keys: Vec<ClientKey>,
    /// The next entry handed out in turn.
    next: AtomicUsize,
    /// Client configurations per (entry, checking certificates, offering h2).
    configs: Mutex<HashMap<(usize, bool, bool), Arc<ClientConfig>>>,
}

impl ClientKeystore {
    /// The aliases in the order they are handed out.
    pub fn aliases(&self) -> impl Iterator<Item = &str> {
        self.keys.iter().map(|k| k.alias.as_str())
    }

    fn config(
        &self,
        index: usize,
        verify: bool,
        offer_h2: bool,
    ) -> Result<Arc<ClientConfig>, TransportError> {
        let mut configs = self.configs.lock();
        if let Some(config) = configs.get(&(index, verify, offer_h2)) {
            return Ok(config.clone());
        }
        let key = &self.keys[index];
        let config =
            tls::config_presenting(verify, offer_h2, key.chain.clone(), key.key.clone_key())
                .map_err(|e| TransportError {
                    class: "javax.net.ssl.SSLHandshakeException",
                    message: e.to_string(),
                })?;
        let config = Arc::new(config);
        configs.insert((index, verify, offer_h2), config.clone());
        Ok(config)
    }
}

/// What one sample's new HTTPS connections present: the run's keystore and, when the
/// Keystore Configuration names a variable, that variable's value for the user.
pub struct ClientCert {
    keystore: Arc<RunKeystore>,
    /// `None` hands the entries out in turn; `Some(None)` is a variable without a value.
    alias: Option<Option<String>>,
}

impl ClientCert {
    /// The choice for a sample, from the user's variables (`lookup`); `None` when the
    /// run has no keystore.
    pub fn for_sample(
        run: &RunShared,
        lookup: impl FnOnce(&str) -> Option<String>,
    ) -> Option<ClientCert> {
        let keystore = run.existing_shared::<RunKeystore>(SHARED_KEY)?;
        let alias = keystore
            .alias_variable()
            .map(|name| lookup(name).filter(|v| !v.is_empty()));
        Some(ClientCert { keystore, alias })
    }

    /// The client configuration a new connection handshakes with. The keystore is read
    /// first if it has not been (JMeter builds a thread's SSL context, keystore
    /// included, at its first HTTPS connection); a keystore that cannot be read fails
    /// the connection with `SSLManager`'s "Could not create keystore". With an alias
    /// variable the entry is the one it names now (JMeter's key manager asks when the
    /// server does); otherwise the user takes the next entry at its first handshake and
    /// keeps it in `users_entry`: JMeter's per-thread SSL context resumes its session on
    /// later connections, so the server keeps seeing the certificate it first got. The
    /// failures are JMeter's `JmeterKeyStore` exceptions.
    pub fn config(
        &self,
        verify: bool,
        offer_h2: bool,
        users_entry: &mut Option<usize>,
    ) -> Result<Arc<ClientConfig>, TransportError> {
        let keystore = self.keystore.loaded().map_err(|reason| TransportError {
            class: "java.lang.IllegalArgumentException",
            message: format!("Could not create keystore: {reason}"),
        })?;
        let index = match &self.alias {
            None => *users_entry.get_or_insert_with(|| {
                keystore.next.fetch_add(1, Ordering::Relaxed) % keystore.keys.len()
            }),
            Some(None) => {
                let name = self.keystore.alias_variable().unwrap_or_default();
                return Err(TransportError {
                    class: "java.lang.IllegalArgumentException",
                    message: format!("No var called '{name}' found"),
                });
            }
            Some(Some(alias)) => keystore
                .keys
                .iter()
                .position(|k| &k.alias == alias)
                .ok_or_else(|| TransportError {
                    class: "java.lang.IllegalArgumentException",
                    message: format!("No certificate found for alias:'{alias}'"),
                })?,
        };
        keystore.config(index, verify, offer_h2)
    }
}

/// Sets up the keystore the system properties name, if any, in `run`'s shared state,
/// as the plan's Keystore Configuration says (its fields evaluated now, once, with the
/// run's properties and the Test Plan's variables, as JMeter prepares a TestBean when
/// the test starts; JMeter's defaults without one: the first key entry only, read at
/// the first HTTPS connection). With `preload` the file is read now. An error is the
/// reason the run cannot start.
pub fn install(
    run: &RunShared,
    system: &HashMap<String, String>,
    plan: &TestPlan,
) -> Result<(), String> {
    let settings = match &plan.keystore {
        Some(element) => {
            let mut vars = start_variables(plan, run);
            let thread = ThreadInfo::default();
            let mut rng = <rand::rngs::SmallRng as rand::SeedableRng>::seed_from_u64(0);
            let mut warnings = Vec::new();
            let settings = element.settings(
                &mut run.eval_context(&mut vars, &thread, &mut rng),
                &mut warnings,
            );
            for warning in warnings {
                runlog::warn(&warning);
            }
            let settings = settings?;
            runlog::info(&format!(
                "Configuring Keystore with (preload: '{}', startIndex: {}, endIndex: {}, \
                 clientCertAliasVarName: '{}')",
                settings.preload, settings.start_index, settings.end_index, settings.alias_variable
            ));
            settings
        }
        None => KeystoreSettings::default(),
    };
    let Some(file) = system.get(KEY_STORE).filter(|f| !f.trim().is_empty()) else {
        return Ok(());
    };
    let keystore = RunKeystore {
        file: PathBuf::from(file),
        password: system.get(KEY_STORE_PASSWORD).cloned(),
        kind: system.get(KEY_STORE_TYPE).cloned(),
        settings,
        loaded: OnceLock::new(),
    };
    if keystore.settings.preload {
        let count = keystore.loaded()?.keys.len();
        runlog::info(&format!(
            "Total of {count} aliases loaded OK from keystore {file}"
        ));
    }
    run.shared(SHARED_KEY, move || keystore);
    Ok(())
}

/// The Test Plan's User Defined Variables, evaluated in order: what `${name}` means in
/// a TestBean prepared when the test starts.
fn start_variables(plan: &TestPlan, run: &RunShared) -> Variables {
    let mut vars = Variables::new();
    let mut rng = <rand::rngs::SmallRng as rand::SeedableRng>::seed_from_u64(0);
    crate::expr::add_plan_variables(run, &plan.variables, &mut vars, &mut rng);
    vars
}

/// Reads `path` and keeps the key entries `settings` selects. The messages follow
/// `SSLManager`'s and `JmeterKeyStore`'s.
pub fn load(
    path: &Path,
    password: Option<&str>,
    kind: Option<&str>,
    settings: &KeystoreSettings,
) -> Result<ClientKeystore, String> {
    let (start, end) = (settings.start_index, settings.end_index);
    if start < 0 || (end != -1 && end < start) {
        return Err(format!("Invalid index(es). Start={start}, end={end}"));
    }
    let shown = path.display();
    let data = std::fs::read(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => format!("Keystore file not found: {shown} ({KEY_STORE})"),
        _ => format!("Can't load keystore '{shown}' ({KEY_STORE}): {e}"),
    })?;
    let kind = kind.map(|k| k.trim().to_ascii_lowercase());
    let pem = |data: &[u8]| {
        read_pem(data).map_err(|e| {
            format!("Problem with one of the certificates/keys in keystore '{shown}': {e}")
        })
    };
    let shown_text = shown.to_string();
    let all = match kind.as_deref() {
        Some("pem") => pem(&data),
        Some("jks" | "jceks") if !is_java_keystore(&data) && !is_pem(&data) => {
            // Java 9 and later read a PKCS#12 file whatever the declared type.
            read_pkcs12(&data, password, &shown_text)
        }
        _ if is_java_keystore(&data) => Err(format!(
            "{shown} is a Java KeyStore (JKS/JCEKS), which jmxr cannot read; convert it to \
             PKCS#12 with keytool -importkeystore -srckeystore {shown} -srcstoretype JKS \
             -destkeystore client.p12 -deststoretype PKCS12 and point {KEY_STORE} at client.p12"
        )),
        _ if is_pem(&data) => pem(&data),
        _ => read_pkcs12(&data, password, &shown_text),
    }?;
    let selected: Vec<ClientKey> = all
        .into_iter()
        .enumerate()
        .filter(|(index, _)| settings.selects(*index))
        .map(|(_, key)| key)
        .collect();
    if selected.is_empty() {
        return Err(format!(
            "No key(s) found in keystore '{shown}' between index {start} and {end}"
        ));
    }
    Ok(ClientKeystore {
        keys: selected,
        next: AtomicUsize::new(0),
        configs: Mutex::new(HashMap::new()),
    })
}

/// JKS (`FEEDFEED`) and JCEKS (`CECECECE`) magic numbers.
fn is_java_keystore(data: &[u8]) -> bool {
    data.starts_with(&[0xFE, 0xED, 0xFE, 0xED]) || data.starts_with(&[0xCE, 0xCE, 0xCE, 0xCE])
}

fn is_pem(data: &[u8]) -> bool {
    let text = String::from_utf8_lossy(&data[..data.len().min(4096)]);
    text.contains("-----BEGIN ")
}

/// The key entries of a PKCS#12 file in the order Java's `KeyStore.aliases()` lists
/// them: file order, aliases in lower case. Without [`KEY_STORE_PASSWORD`] the empty
/// password is tried (a file made without one opens), then the run says what JMeter
/// says when it cannot prompt for one.
fn read_pkcs12(data: &[u8], password: Option<&str>, shown: &str) -> Result<Vec<ClientKey>, String> {
    use p12_keystore::{KeyStore, KeyStoreEntry, Pkcs12ImportPolicy};
    let store = KeyStore::from_pkcs12(data, password.unwrap_or(""), Pkcs12ImportPolicy::Strict)
        .map_err(|e| match password {
            Some(_) => format!(
                "Can't load keystore '{shown}'. Wrong password? ({e}; the password is \
                 {KEY_STORE_PASSWORD})"
            ),
            None => format!(
                "Can't load keystore '{shown}': No password provided, and no GUI present so \
                 cannot prompt (set {KEY_STORE_PASSWORD})"
            ),
        })?;
    let problem =
        |e: String| format!("Problem with one of the certificates/keys in keystore '{shown}': {e}");
    let mut keys = Vec::new();
    for (alias, entry) in store.entries() {
        let KeyStoreEntry::PrivateKeyChain(chain) = entry else {
            continue;
        };
        let certs: Vec<CertificateDer<'static>> = chain
            .certs()
            .iter()
            .map(|c| CertificateDer::from(c.as_der().to_vec()))
            .collect();
        if certs.is_empty() {
            return Err(problem(format!(
                "the key entry '{alias}' has no certificate"
            )));
        }
        keys.push(ClientKey {
            alias: alias.to_lowercase(),
            chain: certs,
            key: PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(chain.key().as_der().to_vec())),
        });
    }
    if keys.is_empty() {
        return Err(problem("it holds no private key entry".into()));
    }
    // The reader keeps its entries sorted by alias; the file's own order decides, and
    // entries it does not name (keys inside encrypted contents) keep their place after.
    let file_order = pkcs12_order::key_bag_aliases(data);
    keys.sort_by_key(|key| {
        file_order
            .iter()
            .position(|alias| alias.to_lowercase() == key.alias)
            .unwrap_or(usize::MAX)
    });
    Ok(keys)
}

/// The key entries of a PEM file: each private key with the certificates after it.
fn read_pem(data: &[u8]) -> Result<Vec<ClientKey>, String> {
    let mut keys: Vec<ClientKey> = Vec::new();
    let mut leading_certs = Vec::new();
    for section in <(SectionKind, Vec<u8>)>::pem_slice_iter(data) {
        let (kind, der) = section.map_err(|e| format!("cannot read it as PEM ({e})"))?;
        let key = match kind {
            SectionKind::PrivateKey => PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(der)),
            SectionKind::RsaPrivateKey => PrivateKeyDer::Pkcs1(PrivatePkcs1KeyDer::from(der)),
            SectionKind::EcPrivateKey => PrivateKeyDer::Sec1(PrivateSec1KeyDer::from(der)),
            SectionKind::Certificate => {
                match keys.last_mut() {
                    Some(entry) => entry.chain.push(CertificateDer::from(der)),
                    None => leading_certs.push(CertificateDer::from(der)),
                }
                continue;
            }
            _ => continue,
        };
        keys.push(ClientKey {
            alias: (keys.len() + 1).to_string(),
            chain: Vec::new(),
            key,
        });
    }
    // `cat cert.pem key.pem` puts the chain first: with one key, it is that key's.
    if keys.len() == 1 && keys[0].chain.is_empty() {
        keys[0].chain = leading_certs;
    }
    if keys.is_empty() {
        return Err("it holds no private key (BEGIN PRIVATE KEY)".into());
    }
    if let Some(bare) = keys.iter().find(|k| k.chain.is_empty()) {
        return Err(format!(
            "the private key number {} has no certificate after it",
            bare.alias
        ));
    }
    Ok(keys)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_keystores_are_refused_with_the_conversion_command() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("client.jks");
        std::fs::write(&path, [0xFE, 0xED, 0xFE, 0xED, 0, 0, 0, 2]).unwrap();
        let error = load(&path, Some("x"), None, &KeystoreSettings::default())
            .err()
            .unwrap();
        assert!(error.contains("keytool -importkeystore"), "{error}");
        assert!(error.contains("-deststoretype PKCS12"), "{error}");
    }

    #[test]
    fn a_pem_file_without_a_key_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("only-cert.pem");
        std::fs::write(
            &path,
            "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n",
        )
        .unwrap();
        let error = load(&path, None, None, &KeystoreSettings::default())
            .err()
            .unwrap();
        assert!(error.contains("no private key"), "{error}");
    }

    #[test]
    fn a_missing_file_names_the_system_property() {
        let error = load(
            Path::new("/nonexistent/client.p12"),
            None,
            None,
            &KeystoreSettings::default(),
        )
        .err()
        .unwrap();
        assert!(error.contains(KEY_STORE), "{error}");
    }
}
