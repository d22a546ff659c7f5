//! Tests of the file functions, on files in a temporary folder.

use super::sequence_name;
use crate::expr::functions::testing::Fixture;

fn write(dir: &tempfile::TempDir, name: &str, text: &str) -> String {
    let path = dir.path().join(name);
    if let Err(err) = std::fs::write(&path, text) {
        panic!("cannot write fixture {name}: {err}");
    }
    path.to_string_lossy().into_owned()
}

fn temp_dir() -> tempfile::TempDir {
    match tempfile::tempdir() {
        Ok(dir) => dir,
        Err(err) => panic!("no temp dir: {err}"),
    }
}

#[test]
fn string_from_file_wraps_and_is_shared_across_users() {
    let dir = temp_dir();
    let path = write(&dir, "lines.txt", "one\r\ntwo\nthree\n");
    let template = Fixture::compile(&format!("${{__StringFromFile({path},L)}}"));
    let mut a = Fixture::new();
    let mut b = Fixture::new();
    assert_eq!(a.run(&template), "one");
    assert_eq!(b.run(&template), "two");
    assert_eq!(a.run(&template), "three");
    assert_eq!(b.run(&template), "one");
    assert_eq!(b.var("L"), Some("one"));
}

#[test]
fn string_from_file_defaults_its_variable_and_resolves_beside_the_plan() {
    let dir = temp_dir();
    write(&dir, "near-plan.txt", "x\n");
    let mut f = Fixture::new();
    f.test.plan_dir = dir.path().to_path_buf();
    assert_eq!(f.eval("${__StringFromFile(near-plan.txt)}"), "x");
    assert_eq!(f.var("StringFromFile_"), Some("x"));
    assert_eq!(f.eval("${__StringFromFile(/no/such/file)}"), "**ERR**");
}

#[test]
fn string_from_file_sequence() {
    let dir = temp_dir();
    write(&dir, "part1.txt", "a\n");
    write(&dir, "part2.txt", "b\n");
    // Relative, so the folder name cannot hold pattern characters.
    let template = Fixture::compile("${__StringFromFile(part#'.txt',,1,2)}");
    let mut f = Fixture::new();
    f.test.plan_dir = dir.path().to_path_buf();
    assert_eq!(f.run(&template), "a");
    assert_eq!(f.run(&template), "b");
    assert_eq!(f.run(&template), "**ERR**");
}

#[test]
fn sequence_names_are_decimal_format_patterns() {
    assert_eq!(sequence_name("pin#'.'dat", 7), "pin7.dat");
    assert_eq!(sequence_name("f000.csv", 12), "f012.csv");
    assert_eq!(sequence_name("part#'.txt'", 2), "part2.txt");
    // An unquoted point is the decimal separator, which Java prints after the number.
    assert_eq!(sequence_name("data.txt", 3), "data3.txt");
    // A name Java refuses (a digit character after the suffix began) stays as it is.
    assert_eq!(sequence_name("f#.csv.0", 1), "f#.csv.0");
}

#[test]
fn file_to_string_reads_everything() {
    let dir = temp_dir();
    let path = write(&dir, "body.json", "{\"a\": 1}\n");
    let mut f = Fixture::new();
    assert_eq!(
        f.eval(&format!("${{__FileToString({path},,B)}}")),
        "{\"a\": 1}\n"
    );
    assert_eq!(f.var("B"), Some("{\"a\": 1}\n"));
    assert_eq!(
        f.eval(&format!("${{__FileToString({path},UTF-8)}}")),
        "{\"a\": 1}\n"
    );
    assert_eq!(f.eval("${__FileToString(/no/such/file)}"), "**ERR**");
    assert_eq!(
        f.eval(&format!("${{__FileToString({path},EBCDIC)}}")),
        "**ERR**"
    );
}

#[test]
fn string_to_file_appends_with_line_breaks_then_truncates() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out.txt");
    let path = path.to_str().unwrap();
    let mut f = Fixture::new();
    assert_eq!(
        f.eval(&format!("${{__StringToFile({path},a\\nb)}}")),
        "true"
    );
    assert_eq!(f.eval(&format!("${{__StringToFile({path},c)}}")), "true");
    assert_eq!(std::fs::read_to_string(path).unwrap(), "a\nbc");
    assert_eq!(
        f.eval(&format!("${{__StringToFile({path},d,false)}}")),
        "true"
    );
    assert_eq!(std::fs::read_to_string(path).unwrap(), "d");
}
