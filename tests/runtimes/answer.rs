// The runtime-compatibility plugin, Rust (static glibc: -C
// target-feature=+crt-static). Same behaviour as answer.c: reads fd 3 in a
// spawned thread, answers 1 when the input starts with "yes"; with "stat" on
// the first line also compares metadata()'s size (exit 2 on failure or
// mismatch); with "churn", the reader thread first allocates and drops
// 16 MiB (glibc's thread arena gives it back with madvise).
use std::fs::File;
use std::io::{Read, Write};
use std::os::unix::io::FromRawFd;
use std::process::exit;
use std::thread;

fn main() {
    let reader = thread::spawn(|| {
        let mut f = unsafe { File::from_raw_fd(3) };
        let mut data = Vec::new();
        if f.read_to_end(&mut data).is_err() {
            exit(3);
        }
        if data.windows(5).take(16).any(|w| w == b"churn") {
            let blocks: Vec<Vec<u8>> = (0..256u32).map(|i| vec![i as u8; 64 << 10]).collect();
            if blocks.iter().map(|b| b.len()).sum::<usize>() != 256 << 16 {
                exit(4);
            }
            drop(blocks);
        }
        (f, data)
    });
    let (f, data) = match reader.join() {
        Ok(v) => v,
        Err(_) => exit(3),
    };
    let first = match data.iter().position(|&b| b == b'\n') {
        Some(i) => &data[..i],
        None => &data[..],
    };
    if first.windows(4).any(|w| w == b"stat") {
        match f.metadata() {
            Ok(m) if m.len() == data.len() as u64 => {}
            _ => exit(2),
        }
    }
    let answer: &[u8] = if data.starts_with(b"yes") { b"1\n" } else { b"0\n" };
    if std::io::stdout().write_all(answer).is_err() {
        exit(1);
    }
}
