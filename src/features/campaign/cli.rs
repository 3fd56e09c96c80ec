//! `pretouch campaign`, the campaign's own subcommand.

use crate::features::campaign::options::CampaignArgs;

impl crate::cmd::feature::FeatureSubcommand for CampaignArgs {
    fn run(self) -> anyhow::Result<u8> {
        crate::features::campaign::session::cmd_campaign(&self)
    }
}
