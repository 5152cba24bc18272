import { z } from 'zod';
import type { World } from '../world.js';
import { MESSAGE_SHAPE, defineApi, rowShape, type App, searchApi } from '../api.js';

/** The person the agent works for: their profile, credentials and the task hand-in. */
export const supervisorApp: App = {
  name: 'supervisor',
  description:
    'Information about the person you are working for (your supervisor): profile, passwords of their app accounts, saved addresses and payment cards. Also where you hand in the task with complete_task. No login needed.',
  apis: [
    defineApi({
      name: 'show_profile',
      description:
        "Show the supervisor's profile: name, email, phone number, birthday and home city.",
      auth: false,
      args: {},
      returns: rowShape('supervisor.profile'),
      handler: ({ world }) => world.supervisor,
    }),
    defineApi({
      name: 'show_account_passwords',
      description:
        "Show the supervisor's password for every app account. Use them with each app's login API.",
      auth: false,
      args: {},
      returns: (world: World) => [rowShape('supervisor.account_passwords')(world)],
      handler: ({ world }) => world.data['supervisor.account_passwords'],
    }),
    searchApi({
      name: 'show_addresses',
      description: "Show the supervisor's saved postal addresses (home, work, ...).",
      auth: false,
      table: 'supervisor.addresses',
      filters: {},
    }),
    searchApi({
      name: 'show_payment_cards',
      description: "Show the supervisor's payment cards, with card numbers and expiry dates.",
      auth: false,
      table: 'supervisor.payment_cards',
      filters: {},
    }),
    defineApi({
      name: 'complete_task',
      description:
        'Finish the task. Pass the answer when the task asks a question (a short value, lists comma-separated), otherwise null; status "fail" if the task cannot be done.',
      auth: false,
      args: {
        answer: z
          .union([z.string(), z.number(), z.null()])
          .default(null)
          .describe('The answer to a question task, or null.'),
        status: z
          .enum(['success', 'fail'])
          .default('success')
          .describe('Whether the task was done.'),
      },
      returns: MESSAGE_SHAPE,
      handler: ({ world }, { answer, status }) => {
        world.completion = { answer: answer === null ? null : String(answer), status };
        return { message: 'Task marked as complete. No further actions are needed.' };
      },
    }),
  ],
};
