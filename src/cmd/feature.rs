//! What a feature adds to the commands: its own subcommand, and what it does before any
//! command runs. `features/cli.rs` lists them, and the macro here makes the subcommands'
//! enum of that list, so the commands name no feature.

/// A feature's own subcommand, as its arguments.
pub(crate) trait FeatureSubcommand {
    /// Runs the subcommand; `Ok` holds the exit code.
    fn run(self) -> anyhow::Result<u8>;
}

/// What a feature did before any command ran, kept for `pretouch env`.
pub(crate) trait BeforeAny {
    /// `pretouch env`'s lines on what the feature found before the command.
    fn env_line(&self) -> String;
}

/// What the features did before any command ran, kept for `pretouch env`.
pub(crate) struct Before(pub Vec<Box<dyn BeforeAny>>);

impl Before {
    /// `pretouch env`'s lines on what the features found before the command.
    pub(crate) fn env_lines(&self) -> String {
        self.0.iter().map(|feature| feature.env_line()).collect()
    }
}

/// Makes `FeatureCommand`, the features' own subcommands, from their list: each
/// subcommand's help, then `Name(Args),` where the arguments are a
/// [`FeatureSubcommand`]. The list's order is the order `pretouch --help` shows them in.
macro_rules! feature_commands {
    ($($(#[$help:meta])* $name:ident($args:ty),)*) => {
        #[derive(Debug, clap::Subcommand)]
        pub enum FeatureCommand {
            $($(#[$help])* $name($args),)*
        }

        impl FeatureCommand {
            /// Runs the feature's subcommand; `Ok` holds the exit code.
            pub(crate) fn run(self) -> anyhow::Result<u8> {
                match self {
                    $(FeatureCommand::$name(args) => {
                        $crate::cmd::feature::FeatureSubcommand::run(args)
                    })*
                }
            }
        }
    };
}
pub(crate) use feature_commands;
