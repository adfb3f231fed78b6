/** Dataset ids of the hosted service (spec "Dataset IDs"): id → table name. */
export const DATASETS: Readonly<Record<string, string>> = {
  '0101': 'svc_evm.b0101_blocks_v1',
  '0102': 'svc_evm.b0102_transactions_v1',
  '0103': 'svc_evm.b0103_logs_v1',
  '0111': 'svc_evm.b0111_internal_transactions_v1',
  '0121': 'svc_evm.b0121_contracts_v1',
  '0122': 'svc_evm.b0122_function_results_v1',
  '0201': 'svc_evm.b0201_erc20_tokens_v1',
  '0202': 'svc_evm.b0202_erc721_tokens_v1',
  '0203': 'svc_evm.b0203_erc1155_tokens_v1',
  '0211': 'svc_evm.b0211_liquidity_pools_v1',
  '0212': 'svc_evm.b0212_liquidity_pools_fee_terms_v1',
  '0301': 'svc_evm.b0301_liquidity_pools_reserves_v1',
  '0302': 'svc_evm.b0302_token_to_token_prices_swap_prints_v1',
  '0303': 'svc_evm.b0303_liquidity_pools_swap_fees_v1',
  '0304': 'svc_evm.b0304_token_transfers_v1',
  '0305': 'svc_evm.b0305_flash_loan_prints_v1',
  '0404': 'svc_evm.b0404_token_to_token_prices_ohlc_v1',
  '0405': 'svc_evm.b0405_token_to_token_vwap_v1',
  '0411': 'svc_evm.b0411_liquidity_pools_yields_v1',
  '0505': 'svc_evm.b0505_token_to_token_cross_pool_vwap_v1',
  '0605': 'svc_evm.b0605_token_to_fiat_vwap',
  '0701': 'svc_evm.b0701_liquidity_pools_tvl_usd_v1',
  '0801': 'svc_evm.b0801_arb_paths_v1',
  '0802': 'svc_evm.b0801_arb_path_status_v1',
  '0901': 'svc_evm.b0901_arb_opportunities_v1',
};

/**
 * The dataset id of a `dataset` field, which the service sends as an id or a full
 * table name (`svc_evm.b0301_liquidity_pools_reserves_v1`); null when it is neither
 * form. An id of the right form but not in the table is returned as is: clients
 * must tolerate new datasets.
 */
export function datasetId(dataset: string): string | null {
  if (/^\d{4}$/.test(dataset)) return dataset;
  // By exact table name first: 0802's table is named b0801_arb_path_status_v1.
  const known = BY_TABLE.get(dataset);
  if (known !== undefined) return known;
  const table = /^(?:[a-z_]+\.)?b(\d{4})_/.exec(dataset);
  return table === null ? null : table[1]!;
}

const BY_TABLE = new Map(Object.entries(DATASETS).map(([id, table]) => [table, id]));

/** Whether two datasets as sent (an id or a table name) are one: by their ids where read, else as sent. */
export function sameDataset(a: string, b: string): boolean {
  return (datasetId(a) ?? a) === (datasetId(b) ?? b);
}
