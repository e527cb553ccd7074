/*
 * gpu — the GPU catalog; see gpu.h.
 *
 * A const table: nothing to initialise or free, and lookups are a linear scan
 * because the catalog holds a handful of entries and is read only while a
 * scenario is parsed.
 *
 * Where every default comes from.  "costs.md" and "mig.md" are
 * shared/reference/; prices are USD per GPU-hour and move often, which is why
 * a scenario can override each one.  Prices of different providers are not
 * like for like (a hyperscaler's on-demand rate is 2-3x a neocloud's), so
 * where no anchor of the same kind exists, the figure is derived from the
 * costs.md anchor by a ratio measured inside one provider, not copied from a
 * cheaper market.
 *
 * | type           | field       | value  | source or assumption                                      |
 * |----------------|-------------|--------|-----------------------------------------------------------|
 * | H100-SXM-80GB  | on-demand   | 6.88   | costs.md: AWS p5                                          |
 * |                | spot        | 2.46   | costs.md: CoreWeave 8x spot                               |
 * |                | busy / idle | 700/70 | costs.md: datasheet TDP / assumption: 10% of TDP, inside   |
 * |                |             |        | costs.md's "commonly 50-100 W" idle range                 |
 * |                | SMs         | 132    | mig.md (7g.80gb uses all 132)                             |
 * | H100-PCIE-80GB | on-demand   | 5.21   | assumption: 6.88 x 0.757, the PCIe/SXM ratio of one       |
 * |                |             |        | provider's list (Lambda: PCIe 2.86, SXM 3.78; deploybase.ai|
 * |                |             |        | "Spot vs On-Demand GPU Pricing", 2025)                    |
 * |                | spot        | 1.86   | assumption: 2.46 x 0.757, same ratio                      |
 * |                | busy / idle | 350/50 | costs.md: datasheet TDP / assumption: low end of the      |
 * |                |             |        | 50-100 W range for a 350 W board                          |
 * |                | SMs         | 114    | NVIDIA H100 PCIe specifications (57 TPCs x 2)             |
 * | H200-141GB     | on-demand   | 7.57   | assumption: 6.88 x 1.10, the H200/H100 ratio of AWS       |
 * |                |             |        | Capacity Block rates (5.408 / 4.916 per GPU-hour, AWS EC2 |
 * |                |             |        | Capacity Blocks pricing page)                             |
 * |                | spot        | 2.71   | assumption: 2.46 x 1.10, same ratio                       |
 * |                | busy / idle | 700/70 | costs.md: datasheet / assumption as H100 SXM              |
 * |                | SMs         | 132    | mig.md ("SMs as H100"); 7g.141gb lists 132                |
 * | A100-SXM4-80GB | on-demand   | 3.43   | costs.md: AWS p4de                                        |
 * |                | spot        | 1.13   | gpumarkets.dev A100 SXM 80GB spot daily fixing,           |
 * |                |             |        | 2026-04-18 ($1.1284, 11 venues)                           |
 * |                | busy / idle | 400/50 | costs.md: datasheet / assumption: low end of 50-100 W     |
 * |                | SMs         | 108    | NVIDIA A100 specifications                                |
 * | A100-SXM4-40GB | on-demand   | 2.74   | costs.md: AWS p4d                                         |
 * |                | spot        | 0.76   | costs.md: GCP a2 spot (A100 40GB)                         |
 * |                | busy / idle | 400/50 | as A100-SXM4-80GB                                         |
 * | L40S-48GB      | on-demand   | 1.861  | AWS g6e.xlarge (1x L40S), us-east-1, as listed in         |
 * |                | spot        | 1.1027 | modal.com "How much does it cost to run NVIDIA L40S GPUs" |
 * |                |             |        | (Aug 2025)                                                |
 * |                | busy / idle | 350/50 | NVIDIA L40S datasheet, max power 350 W / assumption: low  |
 * |                |             |        | end of the 50-100 W range                                 |
 * |                | SMs         | 142    | NVIDIA L40S specifications                                |
 * | L4-24GB        | on-demand   | 0.74   | costs.md: GCP g2-standard-4                               |
 * |                | spot        | 0.30   | assumption: 0.74 x 0.4, the smallest discount (60%) GCP's |
 * |                |             |        | Spot VM pricing page states for GPUs                      |
 * |                | busy / idle | 72/16  | costs.md: datasheet TDP / assumption: 16 W, a small board |
 * |                |             |        | well under the data-centre 50 W floor (22% of TDP)        |
 * |                | SMs         | 58     | NVIDIA L4 specifications                                  |
 *
 * MIG profiles (geometry, SMs, max counts, start slots) are mig.md's tables.
 * Usable memory_gb of a profile:
 *   - H100 80GB (SXM and PCIe): the nvidia-smi figures in mig.md (1g 9.75,
 *     1g.20gb and 2g 19.62, 3g 39.50); 1g.10gb+me uses the same memory slice as
 *     1g.10gb, so 9.75; 4g.40gb and 7g.80gb are not in the listing and use
 *     nominal x 0.9875 (39.50, 79.00).  PCIe (HBM2e) is assumed to report the
 *     same usable sizes as SXM (HBM3): same 80 GB in the same 8 slices.
 *   - H200: `nvidia-smi mig -lgip` on an H200, NVIDIA/mig-parted#120 (1g.18gb
 *     16.00, 1g.35gb and 2g.35gb 32.25, 3g.71gb and 4g.71gb 69.50, 7g.141gb
 *     139.75; SMs 16/26/32/60/64/132 as mig.md).  A measured figure beats the
 *     nominal ratio here: 17.78 GiB (18 x 0.9875) would accept models that do
 *     not fit a 16 GiB slice.
 *   - A100 80GB and 40GB: no listing found; nominal size x 0.9875 (the
 *     39.5/40 ratio of H100's 3g.40gb).
 * H100 PCIe SMs per profile are not in mig.md.  Assumption: H100 SXM's per
 * profile SMs scaled by 114/132 and rounded to an even count (SMs come in
 * pairs per TPC): 14, 14, 22, 28, 52, 56, 114.
 */
#include "gpu.h"

#include <assert.h>
#include <string.h>

/* Start-slot bitmasks from mig.md's "valid start slots" column. */
#define STARTS_1G 0x7Fu      /* 0-6 */
#define STARTS_1G_2MEM 0x55u /* 0, 2, 4, 6 */
#define STARTS_2G 0x15u      /* 0, 2, 4 */
#define STARTS_3G 0x11u      /* 0, 4 */
#define STARTS_4G 0x01u      /* 0 */
#define STARTS_7G 0x01u      /* 0 */

/* name, compute slices, memory slices, usable GiB, SMs, max count, starts */
static const fs_mig_profile mig_h100_sxm[] = {
    {"1g.10gb", 1, 1, 9.75, 16, 7, STARTS_1G},
    {"1g.10gb+me", 1, 1, 9.75, 16, 1, STARTS_1G},
    {"1g.20gb", 1, 2, 19.62, 26, 4, STARTS_1G_2MEM},
    {"2g.20gb", 2, 2, 19.62, 32, 3, STARTS_2G},
    {"3g.40gb", 3, 4, 39.50, 60, 2, STARTS_3G},
    {"4g.40gb", 4, 4, 39.50, 64, 1, STARTS_4G},
    {"7g.80gb", 7, 8, 79.00, 132, 1, STARTS_7G},
};

static const fs_mig_profile mig_h100_pcie[] = {
    {"1g.10gb", 1, 1, 9.75, 14, 7, STARTS_1G},
    {"1g.10gb+me", 1, 1, 9.75, 14, 1, STARTS_1G},
    {"1g.20gb", 1, 2, 19.62, 22, 4, STARTS_1G_2MEM},
    {"2g.20gb", 2, 2, 19.62, 28, 3, STARTS_2G},
    {"3g.40gb", 3, 4, 39.50, 52, 2, STARTS_3G},
    {"4g.40gb", 4, 4, 39.50, 56, 1, STARTS_4G},
    {"7g.80gb", 7, 8, 79.00, 114, 1, STARTS_7G},
};

static const fs_mig_profile mig_h200[] = {
    {"1g.18gb", 1, 1, 16.00, 16, 7, STARTS_1G},
    {"1g.35gb", 1, 2, 32.25, 26, 4, STARTS_1G_2MEM},
    {"2g.35gb", 2, 2, 32.25, 32, 3, STARTS_2G},
    {"3g.71gb", 3, 4, 69.50, 60, 2, STARTS_3G},
    {"4g.71gb", 4, 4, 69.50, 64, 1, STARTS_4G},
    {"7g.141gb", 7, 8, 139.75, 132, 1, STARTS_7G},
};

static const fs_mig_profile mig_a100_80[] = {
    {"1g.10gb", 1, 1, 9.875, 14, 7, STARTS_1G},
    {"1g.10gb+me", 1, 1, 9.875, 14, 1, STARTS_1G},
    {"1g.20gb", 1, 2, 19.75, 14, 4, STARTS_1G_2MEM},
    {"2g.20gb", 2, 2, 19.75, 28, 3, STARTS_2G},
    {"3g.40gb", 3, 4, 39.50, 42, 2, STARTS_3G},
    {"4g.40gb", 4, 4, 39.50, 56, 1, STARTS_4G},
    {"7g.80gb", 7, 8, 79.00, 98, 1, STARTS_7G},
};

static const fs_mig_profile mig_a100_40[] = {
    {"1g.5gb", 1, 1, 4.9375, 14, 7, STARTS_1G},
    {"1g.10gb", 1, 2, 9.875, 14, 4, STARTS_1G_2MEM},
    {"2g.10gb", 2, 2, 9.875, 28, 3, STARTS_2G},
    {"3g.20gb", 3, 4, 19.75, 42, 2, STARTS_3G},
    {"4g.20gb", 4, 4, 19.75, 56, 1, STARTS_4G},
    {"7g.40gb", 7, 8, 39.50, 98, 1, STARTS_7G},
};

#define MIG(table) table, sizeof table / sizeof table[0]

/* name, memory GiB, SMs, on-demand, spot, idle W, busy W, MIG table */
static const fs_gpu_type catalog[] = {
    {"H100-SXM-80GB", 80.0, 132, 6.88, 2.46, 70.0, 700.0, MIG(mig_h100_sxm)},
    {"H100-PCIE-80GB", 80.0, 114, 5.21, 1.86, 50.0, 350.0, MIG(mig_h100_pcie)},
    {"H200-141GB", 141.0, 132, 7.57, 2.71, 70.0, 700.0, MIG(mig_h200)},
    {"A100-SXM4-80GB", 80.0, 108, 3.43, 1.13, 50.0, 400.0, MIG(mig_a100_80)},
    {"A100-SXM4-40GB", 40.0, 108, 2.74, 0.76, 50.0, 400.0, MIG(mig_a100_40)},
    {"L40S-48GB", 48.0, 142, 1.861, 1.1027, 50.0, 350.0, NULL, 0},
    {"L4-24GB", 24.0, 58, 0.74, 0.30, 16.0, 72.0, NULL, 0},
};

const fs_gpu_type *fs_gpu_find(const char *name)
{
    assert(name != NULL);
    for (size_t i = 0; i < sizeof catalog / sizeof catalog[0]; i++)
        if (strcmp(catalog[i].name, name) == 0)
            return &catalog[i];
    return NULL;
}

const fs_gpu_type *fs_gpu_catalog(size_t *count)
{
    assert(count != NULL);
    *count = sizeof catalog / sizeof catalog[0];
    return catalog;
}

const fs_mig_profile *fs_gpu_mig_profile(const fs_gpu_type *gpu, const char *name)
{
    assert(gpu != NULL && name != NULL);
    assert(gpu->mig != NULL || gpu->n_mig == 0);
    for (size_t i = 0; i < gpu->n_mig; i++)
        if (strcmp(gpu->mig[i].name, name) == 0)
            return &gpu->mig[i];
    return NULL;
}
