/** The hostile suite (hostile-suite.ts) under bubblewrap, where the host has it (CI installs it). */
import { hostileSuite } from './hostile-suite';

hostileSuite('auto');
