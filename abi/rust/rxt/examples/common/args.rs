//! Command lines of the examples: `--name value` options and positional arguments.
use std::collections::BTreeMap;

pub struct Args {
    pub positional: Vec<String>,
    options: BTreeMap<String, String>,
}

impl Args {
    /// The process's arguments; an option not in |known| is an error naming the known ones.
    pub fn parse(known: &[&str]) -> Result<Args, String> {
        let mut args = Args { positional: Vec::new(), options: BTreeMap::new() };
        let mut iter = std::env::args().skip(1);
        while let Some(arg) = iter.next() {
            match arg.strip_prefix("--") {
                Some(name) if known.contains(&name) => {
                    let value = iter.next().ok_or_else(|| format!("--{} needs a value", name))?;
                    args.options.insert(name.to_string(), value);
                }
                Some(name) => return Err(format!("unknown option --{} (options: --{})", name, known.join(", --"))),
                None => args.positional.push(arg),
            }
        }
        Ok(args)
    }

    pub fn text(&self, name: &str) -> Option<String> {
        self.options.get(name).cloned()
    }

    /// The value of --|name| parsed as T, or |default|.
    pub fn get<T: std::str::FromStr>(&self, name: &str, default: T) -> Result<T, String> {
        match self.options.get(name) {
            None => Ok(default),
            Some(value) => value.parse().map_err(|_| format!("--{}: cannot read '{}'", name, value)),
        }
    }
}
