import type { SandboxPlugin } from '../context.js';

export const registerWebhookRoutes: SandboxPlugin = () => {};
