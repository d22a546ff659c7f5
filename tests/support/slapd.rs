//! A private OpenLDAP server for the LDAP tests: Debian's `slapd` (installed by
//! `.ci/run`) started as the current user from a `slapd.conf` written here, with the
//! core, cosine and inetOrgPerson schemas, an mdb database in a temporary folder, plain
//! LDAP and LDAPS (the self-signed certificate of `tests/support/tls/`) on 127.0.0.1,
//! seeded with `ldapadd`, killed when dropped.

use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::services::free_port;

/// The directory's suffix, its manager and the manager's password.
pub const SUFFIX: &str = "dc=example,dc=com";
pub const MANAGER: &str = "cn=admin,dc=example,dc=com";
pub const MANAGER_PASSWORD: &str = "secret";

/// The entries every test starts with: two people under `ou=people`, a group folder.
const SEED: &str = "\
dn: dc=example,dc=com
objectClass: dcObject
objectClass: organization
dc: example
o: Example

dn: ou=people,dc=example,dc=com
objectClass: organizationalUnit
ou: people

dn: ou=groups,dc=example,dc=com
objectClass: organizationalUnit
ou: groups

dn: cn=Alice Smith,ou=people,dc=example,dc=com
objectClass: inetOrgPerson
cn: Alice Smith
sn: Smith
givenName: Alice
uid: alice
mail: alice@example.com
telephoneNumber: +1 555 0101
telephoneNumber: +1 555 0100
userPassword: alicepw

dn: cn=Bob Jones,ou=people,dc=example,dc=com
objectClass: inetOrgPerson
cn: Bob Jones
sn: Jones
uid: bob
mail: bob@example.com
userPassword: bobpw
";

pub struct Slapd {
    child: Child,
    pub port: u16,
    pub ldaps_port: u16,
    _folder: tempfile::TempDir,
}

impl Slapd {
    pub fn start() -> Slapd {
        let folder = tempfile::tempdir().expect("server folder");
        let dir = folder.path();
        std::fs::create_dir(dir.join("data")).expect("database folder");
        let tls = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/tls");
        let conf = format!(
            "include /etc/ldap/schema/core.schema\n\
             include /etc/ldap/schema/cosine.schema\n\
             include /etc/ldap/schema/inetorgperson.schema\n\
             pidfile {dir}/slapd.pid\n\
             modulepath /usr/lib/ldap\n\
             moduleload back_mdb\n\
             TLSCertificateFile {tls}/cert.pem\n\
             TLSCertificateKeyFile {tls}/key.pem\n\
             sizelimit 500\n\
             database mdb\n\
             maxsize 10485760\n\
             suffix \"{SUFFIX}\"\n\
             rootdn \"{MANAGER}\"\n\
             rootpw {MANAGER_PASSWORD}\n\
             directory {dir}/data\n\
             access to attrs=userPassword by self write by anonymous auth by * none\n\
             access to * by * read\n",
            dir = dir.display(),
            tls = tls.display()
        );
        std::fs::write(dir.join("slapd.conf"), conf).expect("slapd.conf");
        let (port, ldaps_port) = (free_port(), free_port());
        let child = Command::new("/usr/sbin/slapd")
            .arg("-h")
            .arg(format!(
                "ldap://127.0.0.1:{port}/ ldaps://127.0.0.1:{ldaps_port}/"
            ))
            .arg("-f")
            .arg(dir.join("slapd.conf"))
            // A debug level keeps slapd in the foreground, so the child is the server.
            .args(["-d", "0"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("slapd runs (.ci/run installs Debian's slapd)");
        let server = Slapd {
            child,
            port,
            ldaps_port,
            _folder: folder,
        };
        let started = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err()
            || TcpStream::connect(("127.0.0.1", ldaps_port)).is_err()
        {
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "slapd did not start"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        server.ldapadd(SEED);
        server
    }

    /// Adds the LDIF `entries` as the manager.
    pub fn ldapadd(&self, entries: &str) {
        self.ldap_tool("ldapadd", &[], entries);
    }

    /// The entry `dn` as `ldapsearch` prints it (LDIF), or an empty text when it is absent.
    pub fn entry(&self, dn: &str) -> String {
        self.ldap_tool("ldapsearch", &["-LLL", "-s", "base", "-b", dn], "")
    }

    fn ldap_tool(&self, tool: &str, args: &[&str], input: &str) -> String {
        use std::io::Write;
        let mut child = Command::new(tool)
            .args(["-x", "-H"])
            .arg(format!("ldap://127.0.0.1:{}/", self.port))
            .args(["-D", MANAGER, "-w", MANAGER_PASSWORD])
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("{tool} runs (.ci/run installs ldap-utils): {e}"));
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(input.as_bytes())
            .expect("LDIF written");
        let output = child.wait_with_output().expect("tool ends");
        if tool == "ldapadd" {
            assert!(
                output.status.success(),
                "ldapadd failed: {}",
                String::from_utf8_lossy(&output.stderr)
            );
        }
        String::from_utf8_lossy(&output.stdout).into_owned()
    }
}

impl Drop for Slapd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
