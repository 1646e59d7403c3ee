import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseLabDefinition } from '../../../../lab/definition/load.ts';
import { availableMemoryMiB, memoryWarning } from '../../../../lab/targets/local/memory.ts';

const lab = parseLabDefinition(
  `name: m
target: { local: { tcgCacheMiB: 512 } }
hosts:
  - { name: a, profile: overlay2-xfs, memoryMiB: 1024 }
  - { name: b, profile: overlay2-ext4, memoryMiB: 2048 }
scenarios:
  fio: { size: 16M }
mounts: [layer]
repetitions: 1
`,
  'labs/m.yaml',
);

describe("the local target's memory warning", () => {
  it('counts each VM its memory plus, under TCG only, its code cache', () => {
    // 1024 + 512 + 2048 + 512 = 4096 under TCG; 3072 under KVM.
    assert.equal(memoryWarning(lab, 'tcg', 4096), undefined, 'exactly enough: no warning');
    assert.match(
      memoryWarning(lab, 'tcg', 4095) ?? '',
      /the 2 VM\(s\) may use up to 4096 MiB \(memory plus a 512 MiB TCG code cache each\), more than the 4095 MiB available here; lower hosts' memoryMiB or target\.local\.tcgCacheMiB/,
    );
    assert.equal(memoryWarning(lab, 'kvm', 3072), undefined, 'KVM has no code cache');
    assert.doesNotMatch(memoryWarning(lab, 'kvm', 3071) ?? '', /tcgCacheMiB/, 'nor names it');
    assert.match(memoryWarning(lab, 'kvm', 3071) ?? '', /up to 3072 MiB \(memory\)/);
  });

  it('says nothing when the machine does not tell its available memory', () => {
    assert.equal(memoryWarning(lab, 'tcg', undefined), undefined);
  });

  it("reads this machine's MemAvailable", () => {
    const mib = availableMemoryMiB();
    assert.ok(mib !== undefined && mib > 0, `MemAvailable in MiB: ${mib}`);
  });
});
